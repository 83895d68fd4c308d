// Each writer commit adds many data files, or many small ones: commits take longer, and every
// compaction that follows rewrites more files and widens its conflict window.
// Thresholds (any one, over the writer's last 20 commits, at least 3): >= 100 files per commit on
// average; or added files averaging under 8 MiB; or the newer half of recent commits averaging
// >= 2x the older half and >= 50 files.

import type { Snapshot } from "../../evidence/model.js";
import { describeWriter } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";

const SAMPLE = 20;
const HIGH_FILES = 100;
const SMALL_FILE_BYTES = 8 * 1024 * 1024;
const RISING_FACTOR = 2;
const RISING_MIN_FILES = 50;

function average(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

export const manyFilesPerCommit: DiagnosisRule = {
  id: "many-files-per-commit",
  evaluate(ctx) {
    if (ctx.writerNewestIndex < 0) return null;
    const recent: Snapshot[] = [];
    for (let i = ctx.writerNewestIndex; i >= 0 && recent.length < SAMPLE; i--) {
      const s = ctx.snapshots[i]!;
      if (ctx.isWriter(s) && s.summary["added-data-files"] !== undefined) recent.push(s);
    }
    if (recent.length < 3) return null;
    const files = recent.map((s) => Number(s.summary["added-data-files"]) || 0);
    const bytes = recent.map((s) => Number(s.summary["added-files-size"]) || 0);
    const avgFiles = average(files);
    const totalFiles = files.reduce((a, b) => a + b, 0);
    const avgFileBytes = totalFiles > 0 ? bytes.reduce((a, b) => a + b, 0) / totalFiles : 0;
    const half = Math.floor(recent.length / 2);
    const newer = average(files.slice(0, half));
    const older = average(files.slice(half));
    const reasons: string[] = [];
    if (avgFiles >= HIGH_FILES) reasons.push(`${Math.round(avgFiles)} files per commit on average`);
    // RUNBOOK: "files per commit high or rising, or average added file size small": small files
    // count on their own, whatever the number per commit.
    if (avgFileBytes > 0 && avgFileBytes < SMALL_FILE_BYTES) {
      reasons.push(`average file size ${(avgFileBytes / 1024 / 1024).toFixed(1)} MiB`);
    }
    if (older > 0 && newer >= older * RISING_FACTOR && newer >= RISING_MIN_FILES) {
      reasons.push(`files per commit rose from ${Math.round(older)} to ${Math.round(newer)}`);
    }
    if (reasons.length === 0) return null;
    return finding("warning", `${describeWriter(ctx)} commits many small files: ${reasons.join("; ")}`, [
      {
        source: "catalog",
        detail: `Last ${recent.length} commits by ${describeWriter(ctx)}: ${Math.round(avgFiles)} data files per commit, ${(avgFileBytes / 1024 / 1024).toFixed(1)} MiB per file`,
        data: {
          commits: recent.length,
          averageFilesPerCommit: Math.round(avgFiles),
          averageFileBytes: Math.round(avgFileBytes),
          newestSnapshotId: recent[0]!.snapshotId,
          addedDataFiles: files.slice(0, 10),
        },
      },
    ]);
  },
};
