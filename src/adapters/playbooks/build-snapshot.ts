// Run by `npm run build`: parses the bundled playbooks once, so that commands need not (files.ts).
import { writePlaybookSnapshot } from "./files.js";

await writePlaybookSnapshot();
