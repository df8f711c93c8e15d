export { installLeanEngineWithoutExport } from "./lean-engine-without-export.js";
