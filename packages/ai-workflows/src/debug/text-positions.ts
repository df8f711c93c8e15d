/** Offsets → 1-based line and column, by binary search over line starts. */
export class TextPositions {
  readonly #starts: number[] = [0];

  constructor(readonly text: string) {
    for (let index = text.indexOf("\n"); index >= 0; index = text.indexOf("\n", index + 1)) this.#starts.push(index + 1);
  }

  get lineCount(): number {
    return this.#starts.length;
  }

  at(offset: number): { line: number; column: number } {
    const target = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.#starts[middle] as number) <= target) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: target - (this.#starts[low] as number) + 1 };
  }
}
