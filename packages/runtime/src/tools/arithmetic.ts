/**
 * A safe arithmetic evaluator (recursive descent, no eval): numbers, + - * / % ^,
 * unary minus and parentheses. Throws an Error with a readable message on bad input.
 *
 * @example
 * evaluateArithmetic("2 * (3 + 4) ^ 2"); // 98
 */
export function evaluateArithmetic(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|\.\d+|[-+*/%^()]|\S/gi) ?? [];
  let position = 0;
  const peek = (): string | undefined => tokens[position];
  const take = (): string | undefined => tokens[position++];

  const primary = (): number => {
    const token = take();
    if (token === undefined) throw new Error("Unexpected end of expression");
    if (token === "(") {
      const value = sum();
      if (take() !== ")") throw new Error("Missing closing parenthesis");
      return value;
    }
    if (token === "-") return -unary();
    if (token === "+") return unary();
    const number = Number(token);
    if (Number.isNaN(number)) throw new Error(`Unexpected token "${token}"`);
    return number;
  };
  const unary = (): number => primary();
  // Exponentiation is right-associative, as in mathematics.
  const power = (): number => {
    const base = unary();
    if (peek() === "^") {
      take();
      return base ** power();
    }
    return base;
  };
  const product = (): number => {
    let value = power();
    for (let token = peek(); token === "*" || token === "/" || token === "%"; token = peek()) {
      take();
      const right = power();
      if ((token === "/" || token === "%") && right === 0) throw new Error("Division by zero");
      value = token === "*" ? value * right : token === "/" ? value / right : value % right;
    }
    return value;
  };
  const sum = (): number => {
    let value = product();
    for (let token = peek(); token === "+" || token === "-"; token = peek()) {
      take();
      value = token === "+" ? value + product() : value - product();
    }
    return value;
  };

  if (tokens.length === 0) throw new Error("Empty expression");
  const result = sum();
  if (position < tokens.length) throw new Error(`Unexpected token "${tokens[position]}"`);
  if (!Number.isFinite(result)) throw new Error("Result is not a finite number");
  return result;
}
