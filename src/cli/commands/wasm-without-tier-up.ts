// A table command sends a handful of requests and exits. Once undici's HTTP parser (WebAssembly)
// has read a few answers, V8 recompiles its main function with the optimising tier on a background
// thread: about 150 ms of CPU, more than the command spends parsing HTTP at all. The baseline code
// is kept instead. Read when the parser is compiled, on the first request, so set before it.
import { setFlagsFromString } from "node:v8";

setFlagsFromString("--wasm-tiering-budget=2147483647");
