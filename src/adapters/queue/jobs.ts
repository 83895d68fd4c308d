// Job payloads are contracts between processes and live in the core; queue code imports them here.
export * from "../../core/jobs.js";
