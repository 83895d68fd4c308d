// A Slack Web API refusal as the stand-in answers it: HTTP 200 with ok:false, the error code and,
// for argument errors, Slack's response_metadata.messages.

export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly messages: string[] = [],
  ) {
    super(code);
  }
}
