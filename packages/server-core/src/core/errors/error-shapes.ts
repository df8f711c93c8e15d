import type { ErrorShape, ErrorWriter } from "../../contracts/error-writer.js";
import { ConfigurationError } from "../../errors/server-errors.js";

/**
 * The error writers of surfaces that speak another wire format, by path prefix. Few entries
 * (one per surface), kept longest first so the first match is the most specific.
 */
export class ErrorShapeTable {
  private shapes: ErrorShape[] = [];

  add(shape: ErrorShape): void {
    if (typeof shape?.pathPrefix !== "string" || !shape.pathPrefix.startsWith("/") || typeof shape.write !== "function")
      throw new ConfigurationError("An error shape needs an absolute pathPrefix and a write function");
    this.shapes = [...this.shapes.filter((known) => known.pathPrefix !== shape.pathPrefix), shape].sort(
      (a, b) => b.pathPrefix.length - a.pathPrefix.length,
    );
  }

  /** The writer for `path`, if a surface claimed it. */
  find(path: string): ErrorWriter | undefined {
    for (const shape of this.shapes) if (path.startsWith(shape.pathPrefix)) return shape.write;
    return undefined;
  }

  get size(): number {
    return this.shapes.length;
  }
}
