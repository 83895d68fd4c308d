// Help texts. Kept as plain data so `--help` loads nothing else.

const SOURCE_FLAGS = `Sources (each overrides its environment variable):
  --catalog-url URL      Iceberg REST catalog            (ICEBERG_CATALOG_URL)
  --warehouse NAME       catalog warehouse               (ICEBERG_WAREHOUSE)
  --flink-url URL        Flink REST API                  (FLINK_REST_URL)
  --connect-url URL      Kafka Connect REST API          (CONNECT_REST_URL)
  --prometheus-url URL   Prometheus, optional            (PROMETHEUS_URL)
  --flink-job ID         the Flink job that writes the table (default: BOT_CONFIG, else
                         discovered from flink.job-id in the table's snapshots)
  --connector NAME       the Kafka Connect connector that writes the table (default:
                         BOT_CONFIG, else the one whose iceberg.tables lists it)
  --config FILE          BOT_CONFIG YAML file (tables -> Flink job, connector, ...)
  --timeout-ms N         per-source timeout, 100..120000  (SOURCE_TIMEOUT_MS, default 5000)
  --spark-catalog NAME   Spark catalog name in statements to copy (default spark_catalog)
Catalog credentials come from the environment only (ICEBERG_CATALOG_TOKEN or
ICEBERG_CATALOG_CREDENTIAL), so they never show up in shell history or process lists.`;

export const GENERAL_USAGE = `iceberg-bot: diagnose Apache Iceberg tables whose commits fail or conflict.

Usage: iceberg-bot <command> [options]

Commands:
  start                    run the Slack bot: the receiver, and the workers in a child process
  serve                    run only the receiver (Slack events, alert webhooks)
  worker                   run only the diagnosis workers
  diagnose <table>         diagnose one table now and print the report
  audit <table>            grade one table against the concurrent-writers checklist
  sweep                    grade every table of the catalog and rank them, worst first
  playbooks lint [dir]     check playbook files, with file:line for every problem
  history <table>          the table's past incidents, newest first, with the step that fixed each
  postmortem <incident>    write an incident's postmortem (markdown and pictures) to disk
  demo [scenario]          run a whole incident against the simulated lakehouse
  dev                      a local Slack to click through: lakehouse, stand-in, bot, web page
  sim [scenario]           serve a simulated lakehouse (catalog, Flink, Connect, Prometheus)
  schemas                  print or regenerate the JSON Schemas of the reports
  discover                 list the Flink clusters the Flink Kubernetes Operator runs
  config check             every problem of the configuration at once, and sources that do not answer
  help [command]           show help for a command

Run \`iceberg-bot <command> --help\` for a command's options.
Exit codes: 0 healthy, 1 needs action, 2 bad usage, configuration or table, 3 no source answered.
`;

export const COMMAND_USAGE: Record<string, string> = {
  config: `Usage: iceberg-bot config check [options]

Checks the configuration a bot process would start with, without starting it, and lists every
problem in one pass: invalid or missing environment variables, BOT_CONFIG (with file:line), the
variables and secret files it names, and what the role needs. Then each evidence source is asked
once with a short timeout; one that does not answer is a warning, not an error.

  --config FILE              BOT_CONFIG YAML file (overrides BOT_CONFIG)
  --role start|serve|worker  the process to check for (default start)
  --probe-timeout-ms N       how long each source may take to answer, 100..30000 (default 2000)
  --offline                  do not contact the sources

Exit codes: 0 no error (warnings may be listed), 2 at least one error.
`,
  start: `Usage: iceberg-bot start [--config FILE]

Runs the Slack receiver, and the diagnosis workers in a child process it supervises (restarted
if it dies, drained and stopped after the receiver on shutdown): one command for small installs,
and diagnoses never share the event loop that acknowledges Slack and alerts.
Settings come from the environment (SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET or SLACK_APP_TOKEN,
REDIS_URL, ICEBERG_CATALOG_URL, FLINK_REST_URL, CONNECT_REST_URL, ...); every missing or
invalid setting is listed at once and the command exits 2.

  --config FILE   BOT_CONFIG YAML file (overrides BOT_CONFIG)
`,
  serve: `Usage: iceberg-bot serve [--config FILE]

Runs only the receiver: Slack events, alert webhooks, /healthz, /readyz, /metrics.
Pair it with one or more \`iceberg-bot worker\` processes on the same Redis.

  --config FILE   BOT_CONFIG YAML file (overrides BOT_CONFIG)
`,
  worker: `Usage: iceberg-bot worker [--config FILE]

Runs only the diagnosis and follow-up workers; start as many as you need.

  --config FILE   BOT_CONFIG YAML file (overrides BOT_CONFIG)
`,
  diagnose: `Usage: iceberg-bot diagnose <table> [options]

Reads the table's commits from the catalog, its writer from Flink or Kafka Connect, names what
went wrong with evidence, and picks the one next step. <table> is namespace.table (db.events,
a.b.events), catalog.namespace.table, or the Flink metric form (iceberg_db_events).

  --format text|json|markdown   output format (default text; json follows docs/report.schema.json)
  --chart FILE                  also draw the commit timeline as a PNG to FILE (markdown embeds it)
${SOURCE_FLAGS}

Exit codes: 0 healthy, 1 something needs action, 2 bad usage, configuration, unknown or
invalid table, 3 no evidence source answered.

Example:
  iceberg-bot diagnose db.events --catalog-url http://catalog:8181 --flink-url http://flink:8081
`,
  audit: `Usage: iceberg-bot audit <table> [options]

Grades the table against the concurrent-writers checklist (retry budget, isolation level,
write mode, snapshot expiry, ...): pass, warn or fail, the values read, and the fix.

  --format text|json|markdown   output format (default text; json follows docs/audit-report.schema.json)
${SOURCE_FLAGS}

Exit codes: 0 no check failed (warnings allowed), 1 at least one check failed, 2 bad usage,
configuration, unknown or invalid table, 3 no evidence source answered.

Example:
  iceberg-bot audit db.events --catalog-url http://catalog:8181 --format markdown
`,
  sweep: `Usage: iceberg-bot sweep [options]

Lists every namespace (nested ones too) and table of the catalog, following its pages, audits
and diagnoses each table, and ranks them worst first by health score (docs/sweep.md).

  --format text|json|markdown   output format (default text)
  --namespace NS                only this namespace and those below it (e.g. analytics.web)
  --limit N                     list only the N worst tables (counts still cover all)
  --concurrency N               tables read at once, 1..64 (default 4)
  --catalog-url URL, --warehouse NAME, --flink-url URL, --connect-url URL,
  --prometheus-url URL, --config FILE, --timeout-ms N, --spark-catalog NAME
                                as for \`diagnose\`; each table's writer comes from BOT_CONFIG or
                                is discovered, as for \`diagnose\`

Exit codes: 0 no check failed anywhere, 1 at least one check failed or a table could not be
read, 2 bad usage or configuration, 3 the catalog did not answer.

Example:
  iceberg-bot sweep --catalog-url http://catalog:8181 --namespace analytics --limit 20
`,
  history: `Usage: iceberg-bot history <table> [--format text|json] [--redis-namespace NAME]

Lists the table's closed incidents kept in the bot's Redis (REDIS_URL) within
retention.resolvedDays, newest first: when, the failure and its cause, the step that fixed it
and the steps that did not help.

Exit codes: 0 listed (or none kept), 2 bad usage or configuration.
`,
  postmortem: `Usage: iceberg-bot postmortem <incident> [--out DIR] [--redis-namespace NAME]

Writes the incident's postmortem draft as markdown (<table>-postmortem-<incident>.md) and its
two commit timeline pictures (the diagnosis, and after the change) to DIR (default: here), read
from the bot's Redis (REDIS_URL); prints the paths. The same draft the thread got when the
incident resolved.

Exit codes: 0 written, 2 bad usage, configuration, or no such incident kept.
`,
  playbooks: `Usage: iceberg-bot playbooks lint [dir]

Validates every playbook file in <dir> (default: the playbooks shipped with iceberg-bot):
schema, step graph, reachable steps. Prints file:line: reason for each problem.

Exit codes: 0 all valid, 1 problems found, 2 bad usage or the directory does not exist.
`,
  demo: `Usage: iceberg-bot demo [scenario] [--autopilot on|hold|shadow|off-hours|budget-spent]

Runs a whole incident against the simulated lakehouse and a local Slack stand-in, then prints
the thread. Needs Redis (REDIS_URL, default redis://127.0.0.1:6379).
Default scenario: competing-appends. List scenarios with \`iceberg-bot sim --list\`.

  --autopilot MODE  on: autopilot applies the low-risk steps after its hold-off (and reverts
                    them when the writer does not recover); hold: a person presses Hold and
                    approves by hand; shadow: it applies nothing and records what it would do;
                    off-hours, budget-spent: it leaves the step to people by its hours or by
                    the fleet's hourly budget, and the thread says why (docs/autopilot.md)
`,
  dev: `Usage: iceberg-bot dev [--port N] [--host HOST] [--scenario NAME]

Starts the simulated lakehouse, a local Slack stand-in, the bot and its workers, and serves a
web page showing the incident channel as Slack would. Buttons, forms and slash commands on the
page go into the bot as signed Slack requests, as the person you pick (an approver, a second
approver, or someone who may not approve). A menu fires an alert for any scenario. Needs Redis
(REDIS_URL, default redis://127.0.0.1:6379; a private redis-server is started when none answers).

  --port N          port of the page (default 3100)
  --host HOST       address of the page (default 127.0.0.1)
  --scenario NAME   scenario the lakehouse plays first (default competing-appends)
`,
  sim: `Usage: iceberg-bot sim [scenario] [--list] [--host HOST] [--port-base N] [--slack]
                         [--advertise-host NAME]

Serves a simulated lakehouse (Iceberg REST catalog, Flink REST, Kafka Connect REST,
Prometheus) playing a scenario, prints the URLs and the variables to export, and runs until
Ctrl-C. Default scenario: competing-appends. A scenario is a built-in name or a .yaml path.

  --list          list the built-in scenarios and exit
  --host HOST     address to listen on (default 127.0.0.1)
  --port-base N   fixed ports: catalog N, Flink N+1, Connect N+2, Prometheus N+3
                  (default: free ports)
  --slack         also serve the Slack Web API stand-in (on N+4 with --port-base), for a
                  bot with no Slack workspace; it accepts the token xoxb-stand-in
  --advertise-host NAME
                  host name the bot reaches the stand-in by, for the URLs it hands out
                  (default 127.0.0.1; docker compose: sim)
`,
  schemas: `Usage: iceberg-bot schemas [--write DIR | --check DIR]

Prints the JSON Schemas of the diagnosis and audit reports, generated from the code.

  --write DIR   write report.schema.json and audit-report.schema.json into DIR
  --check DIR   exit 1 when the files in DIR differ from the code
`,
  discover: `Usage: iceberg-bot discover [--config FILE] [--format text|json]

Lists the FlinkDeployments and FlinkSessionJobs in the namespaces of the kubernetes section of
BOT_CONFIG, once, with the bot's own credentials (the pod's service account, or the kubeconfig
named there): each JobManager's REST URL, its jobs' ids, names and states, pending jobs, and every
namespace the RBAC refuses with the manifest that grants it (docs/kubernetes.md).
Exits 0 when every namespace was listed, 1 when some were refused, 2 when the credentials or the
RBAC refuse all of them, 3 when the API server does not answer.

  --config FILE     BOT_CONFIG YAML file (overrides BOT_CONFIG)
  --format FORMAT   text (default) or json
`,
  help: `Usage: iceberg-bot help [command]

Shows the list of commands, or the help of one command.
`,
};
