// Block Kit validation with Slack's published limits, so a message the real Web API would refuse
// is refused here too. Errors read like Slack's: "[ERROR] <what> [json-pointer:/blocks/0/text]".

export type Surface = "message" | "modal" | "home";

const MAX_BLOCKS: Record<Surface, number> = { message: 50, modal: 100, home: 100 };

const BLOCK_TYPES = new Set([
  "section",
  "header",
  "divider",
  "context",
  "actions",
  "input",
  "image",
  "rich_text",
  "markdown",
  "file",
  "video",
]);

/** Interactive elements that may sit in an actions block, a section accessory or an input. */
const ELEMENT_TYPES = new Set([
  "button",
  "checkboxes",
  "radio_buttons",
  "overflow",
  "datepicker",
  "timepicker",
  "datetimepicker",
  "static_select",
  "external_select",
  "users_select",
  "conversations_select",
  "channels_select",
  "multi_static_select",
  "multi_external_select",
  "multi_users_select",
  "multi_conversations_select",
  "multi_channels_select",
  "plain_text_input",
  "number_input",
  "email_text_input",
  "url_text_input",
  "rich_text_input",
  "file_input",
  "image",
]);

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

class Checker {
  readonly errors: string[] = [];

  fail(path: string, what: string): void {
    this.errors.push(`[ERROR] ${what} [json-pointer:${path}]`);
  }

  maxLength(value: unknown, max: number, path: string): void {
    if (typeof value !== "string") {
      this.fail(path, "must be a string");
    } else if (value.length > max) {
      this.fail(path, `must be less than ${max + 1} characters`);
    }
  }

  optionalMaxLength(value: unknown, max: number, path: string): void {
    if (value !== undefined) this.maxLength(value, max, path);
  }

  text(value: unknown, path: string, max: number, plainOnly = false): void {
    if (!isObject(value)) {
      this.fail(path, "must provide an object");
      return;
    }
    const allowed = plainOnly ? ["plain_text"] : ["plain_text", "mrkdwn"];
    if (!allowed.includes(String(value.type))) {
      this.fail(`${path}/type`, `must be one of ${allowed.join(", ")}`);
    }
    if (typeof value.text !== "string" || value.text.length === 0) {
      this.fail(`${path}/text`, "must be more than 0 characters");
      return;
    }
    this.maxLength(value.text, max, `${path}/text`);
    if (value.emoji !== undefined && value.type !== "plain_text") {
      this.fail(`${path}/emoji`, "only plain_text supports emoji");
    }
  }

  optionalPlain(value: unknown, path: string, max: number): void {
    if (value !== undefined) this.text(value, path, max, true);
  }

  confirm(value: unknown, path: string): void {
    if (!isObject(value)) {
      this.fail(path, "must provide an object");
      return;
    }
    this.text(value.title, `${path}/title`, 100, true);
    this.text(value.text, `${path}/text`, 300);
    this.text(value.confirm, `${path}/confirm`, 30, true);
    this.text(value.deny, `${path}/deny`, 30, true);
    if (value.style !== undefined && value.style !== "primary" && value.style !== "danger") {
      this.fail(`${path}/style`, "must be primary or danger");
    }
  }

  options(value: unknown, path: string, min: number, max: number): void {
    if (!Array.isArray(value) || value.length < min) {
      this.fail(path, `must provide at least ${min} items`);
      return;
    }
    if (value.length > max) this.fail(path, `must provide no more than ${max} items`);
    value.forEach((option, i) => {
      const at = `${path}/${i}`;
      if (!isObject(option)) {
        this.fail(at, "must provide an object");
        return;
      }
      this.text(option.text, `${at}/text`, 75);
      this.maxLength(option.value, 150, `${at}/value`);
      if (option.description !== undefined) this.text(option.description, `${at}/description`, 75);
    });
  }

  element(value: unknown, path: string, actionIds: Set<string>): void {
    if (!isObject(value)) {
      this.fail(path, "must provide an object");
      return;
    }
    const type = String(value.type);
    if (!ELEMENT_TYPES.has(type)) {
      this.fail(`${path}/type`, `unsupported element type: ${type}`);
      return;
    }
    if (type === "image") {
      this.image(value, path);
      return;
    }
    if (value.action_id !== undefined) {
      this.maxLength(value.action_id, 255, `${path}/action_id`);
      if (typeof value.action_id === "string") {
        if (actionIds.has(value.action_id)) this.fail(`${path}/action_id`, "must be unique in the block");
        actionIds.add(value.action_id);
      }
    }
    if (value.confirm !== undefined) this.confirm(value.confirm, `${path}/confirm`);
    this.optionalPlain(value.placeholder, `${path}/placeholder`, 150);
    switch (type) {
      case "button":
        this.text(value.text, `${path}/text`, 75, true);
        this.optionalMaxLength(value.value, 2000, `${path}/value`);
        this.optionalMaxLength(value.url, 3000, `${path}/url`);
        this.optionalMaxLength(value.accessibility_label, 75, `${path}/accessibility_label`);
        if (value.style !== undefined && value.style !== "primary" && value.style !== "danger") {
          this.fail(`${path}/style`, "must be primary or danger");
        }
        break;
      case "checkboxes":
      case "radio_buttons":
        this.options(value.options, `${path}/options`, 1, 10);
        break;
      case "overflow":
        this.options(value.options, `${path}/options`, 1, 5);
        break;
      case "static_select":
      case "multi_static_select":
        if (value.option_groups === undefined) this.options(value.options, `${path}/options`, 1, 100);
        break;
      case "plain_text_input":
        this.optionalMaxLength(value.initial_value, 3000, `${path}/initial_value`);
        for (const key of ["min_length", "max_length"] as const) {
          const n = value[key];
          if (n !== undefined && (typeof n !== "number" || n < 0 || n > 3000)) {
            this.fail(`${path}/${key}`, "must be a number between 0 and 3000");
          }
        }
        break;
      default:
        break;
    }
  }

  image(value: Json, path: string): void {
    if (value.image_url === undefined && value.slack_file === undefined) {
      this.fail(path, "must provide image_url or slack_file");
    }
    this.optionalMaxLength(value.image_url, 3000, `${path}/image_url`);
    this.maxLength(value.alt_text, 2000, `${path}/alt_text`);
  }

  block(value: unknown, path: string, surface: Surface, blockIds: Set<string>): void {
    if (!isObject(value)) {
      this.fail(path, "must provide an object");
      return;
    }
    const type = String(value.type);
    if (!BLOCK_TYPES.has(type)) {
      this.fail(`${path}/type`, `unsupported block type: ${type}`);
      return;
    }
    if (value.block_id !== undefined) {
      this.maxLength(value.block_id, 255, `${path}/block_id`);
      if (typeof value.block_id === "string") {
        if (blockIds.has(value.block_id)) this.fail(`${path}/block_id`, "must be unique");
        blockIds.add(value.block_id);
      }
    }
    const actionIds = new Set<string>();
    switch (type) {
      case "section":
        if (value.text === undefined && value.fields === undefined) {
          this.fail(path, "must provide text or fields");
        }
        if (value.text !== undefined) this.text(value.text, `${path}/text`, 3000);
        if (value.fields !== undefined) {
          if (!Array.isArray(value.fields) || value.fields.length === 0 || value.fields.length > 10) {
            this.fail(`${path}/fields`, "must provide between 1 and 10 items");
          } else {
            for (const [i, field] of value.fields.entries()) this.text(field, `${path}/fields/${i}`, 2000);
          }
        }
        if (value.accessory !== undefined) this.element(value.accessory, `${path}/accessory`, actionIds);
        break;
      case "header":
        this.text(value.text, `${path}/text`, 150, true);
        break;
      case "context":
        this.list(value.elements, `${path}/elements`, 10, (element, at) => {
          if (isObject(element) && element.type === "image") this.image(element, at);
          else this.text(element, at, 3000);
        });
        break;
      case "actions":
        this.list(value.elements, `${path}/elements`, 25, (element, at) =>
          this.element(element, at, actionIds),
        );
        break;
      case "input":
        if (surface === "message") this.fail(`${path}/type`, "input blocks are only allowed in views");
        this.text(value.label, `${path}/label`, 2000, true);
        this.optionalPlain(value.hint, `${path}/hint`, 2000);
        if (value.element === undefined) this.fail(`${path}/element`, "must provide an element");
        else this.element(value.element, `${path}/element`, actionIds);
        break;
      case "image":
        this.image(value, path);
        this.optionalPlain(value.title, `${path}/title`, 2000);
        break;
      case "markdown":
        this.maxLength(value.text, 12_000, `${path}/text`);
        break;
      case "rich_text":
        if (!Array.isArray(value.elements)) this.fail(`${path}/elements`, "must provide an array");
        break;
      default:
        break;
    }
  }

  list(value: unknown, path: string, max: number, each: (item: unknown, at: string) => void): void {
    if (!Array.isArray(value) || value.length === 0) {
      this.fail(path, "must provide at least 1 item");
      return;
    }
    if (value.length > max) this.fail(path, `must provide no more than ${max} items`);
    for (const [i, item] of value.entries()) each(item, `${path}/${i}`);
  }
}

/** Returns Slack-style error lines; empty when the blocks would be accepted. */
export function checkBlocks(blocks: unknown, surface: Surface, pointer = "/blocks"): string[] {
  const checker = new Checker();
  if (!Array.isArray(blocks)) {
    checker.fail(pointer, "must provide an array");
    return checker.errors;
  }
  const max = MAX_BLOCKS[surface];
  if (blocks.length > max) checker.fail(pointer, `no more than ${max} items allowed`);
  const blockIds = new Set<string>();
  for (const [i, block] of blocks.entries()) checker.block(block, `${pointer}/${i}`, surface, blockIds);
  return checker.errors;
}

/** Checks a views.open / views.publish view object; errors point into /view. */
export function checkView(view: unknown, expected: "modal" | "home" | "any"): string[] {
  const checker = new Checker();
  if (!isObject(view)) {
    checker.fail("/view", "must provide an object");
    return checker.errors;
  }
  const type = view.type;
  if (type !== "modal" && type !== "home") {
    checker.fail("/view/type", "must be modal or home");
    return checker.errors;
  }
  if (expected !== "any" && type !== expected) {
    checker.fail("/view/type", `must be ${expected}`);
    return checker.errors;
  }
  checker.optionalMaxLength(view.callback_id, 255, "/view/callback_id");
  checker.optionalMaxLength(view.private_metadata, 3000, "/view/private_metadata");
  checker.optionalMaxLength(view.external_id, 255, "/view/external_id");
  if (type === "modal") {
    checker.text(view.title, "/view/title", 24, true);
    checker.optionalPlain(view.submit, "/view/submit", 24);
    checker.optionalPlain(view.close, "/view/close", 24);
    const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isObject(b) && b.type === "input");
    if (hasInput && view.submit === undefined)
      checker.fail("/view/submit", "required when the view has inputs");
  }
  return [...checker.errors, ...checkBlocks(view.blocks, type, "/view/blocks")];
}
