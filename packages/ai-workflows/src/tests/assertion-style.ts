/** How one framework writes the assertions the generated tests need. */
export interface AssertionStyle {
  throws(call: string, isAsync: boolean): string;
  doesNotThrow(call: string, isAsync: boolean): string;
  typeIs(expression: string, type: string): string;
  equals(actual: string, expected: string): string;
  isFalse(expression: string): string;
  lessThan(actual: string, limit: string): string;
  isDefined(expression: string): string;
  isInstance(expression: string, className: string): string;
  /** Characterization of the current result, or undefined when the framework has no snapshots. */
  snapshot(expression: string): string | undefined;
}

export const expectStyle: AssertionStyle = {
  throws: (call, isAsync) => (isAsync ? `await expect(${call}).rejects.toThrow();` : `expect(() => ${call}).toThrow();`),
  doesNotThrow: (call, isAsync) => (isAsync ? `await expect(${call}).resolves.not.toThrow();` : `expect(() => ${call}).not.toThrow();`),
  typeIs: (expression, type) => `expect(typeof ${expression}).toBe(${JSON.stringify(type)});`,
  equals: (actual, expected) => `expect(${actual}).toEqual(${expected});`,
  isFalse: (expression) => `expect(${expression}).toBe(false);`,
  lessThan: (actual, limit) => `expect(${actual}).toBeLessThan(${limit});`,
  isDefined: (expression) => `expect(${expression}).toBeDefined();`,
  isInstance: (expression, className) => `expect(${expression}).toBeInstanceOf(${className});`,
  snapshot: (expression) => `expect(${expression}).toMatchSnapshot();`,
};

export const assertStyle: AssertionStyle = {
  throws: (call, isAsync) => (isAsync ? `await assert.rejects(async () => ${call});` : `assert.throws(() => ${call});`),
  doesNotThrow: (call, isAsync) => (isAsync ? `await assert.doesNotReject(async () => ${call});` : `assert.doesNotThrow(() => ${call});`),
  typeIs: (expression, type) => `assert.strictEqual(typeof ${expression}, ${JSON.stringify(type)});`,
  equals: (actual, expected) => `assert.deepStrictEqual(${actual}, ${expected});`,
  isFalse: (expression) => `assert.strictEqual(${expression}, false);`,
  lessThan: (actual, limit) => `assert.ok(${actual} < ${limit});`,
  isDefined: (expression) => `assert.notStrictEqual(${expression}, undefined);`,
  isInstance: (expression, className) => `assert.ok(${expression} instanceof ${className});`,
  snapshot: () => undefined,
};
