// A table command parses each answer once and exits: zod's compiled object parsers (generated
// source, one per object schema, on its first parse) cost more CPU than they save here. Imported
// first, before any schema exists, because a schema reads the setting when it is made.
import { z } from "zod";

z.config({ jitless: true });
