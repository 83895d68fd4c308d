// Counted nouns read as people write them: "1 commit", "38 commits", never "commit(s)".

/** "1 commit", "3 commits"; irregular plurals are passed in ("1 child", "2 children"). */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? singular : pluralForm}`;
}
