/** What a prompt asks the answer to look like, read from its wording. */
export interface PromptExpectation {
  format: "json" | "list" | "code" | "table" | "sentence" | "word" | "number" | "text";
  /** Items a list should have, when the prompt says ("3 reasons", "five steps"). */
  items?: number;
  minWords: number;
  maxWords: number;
  keywords: string[];
}

const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };
const STOPWORDS = new Set(
  "about above after again against also because been before being below between both could does doing down during each explain from further give have having here into itself just more most other over please same should some such than that their them then there these they this those through under until very were what when where which while whom with would write your list tell describe using make answer return json yaml table sentence sentences words word format bullet bullets give provide show".split(
    " ",
  ),
);

const stem = (word: string) => word.toLowerCase().slice(0, 6);

/** Reads the expected format, item count, length range and content keywords of a prompt. */
export function expectationOf(prompt: string): PromptExpectation {
  const text = prompt.toLowerCase();
  const countMatch = /\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:[a-z-]+\s+)?([a-z]+s)\b/.exec(text);
  const count = countMatch ? (NUMBER_WORDS[countMatch[1] as string] ?? Number(countMatch[1])) : undefined;
  const keywords = [...new Set((text.match(/[a-z][a-z-]{3,}/g) ?? []).filter((word) => !STOPWORDS.has(word)))].slice(0, 12);
  const base = { keywords };
  if (/\bjson\b/.test(text)) return { ...base, format: "json", minWords: 1, maxWords: 2_000 };
  if (/\btable\b/.test(text)) return { ...base, format: "table", minWords: 5, maxWords: 1_000 };
  if (countMatch?.[2] === "words" && count)
    return {
      ...base,
      format: count === 1 ? "word" : "text",
      minWords: Math.max(1, Math.floor(count * 0.7)),
      maxWords: Math.ceil(count * 1.3),
    };
  if (count && countMatch?.[2] !== "sentences") return { ...base, format: "list", items: count, minWords: count * 2, maxWords: count * 60 };
  if (/\b(code|function|snippet|script|implement|typescript|javascript|python|sql)\b/.test(text))
    return { ...base, format: "code", minWords: 5, maxWords: 1_500 };
  if (/\b(one|single) word\b/.test(text)) return { ...base, format: "word", minWords: 1, maxWords: 3 };
  if (/\b(one|a single|in a) sentence\b/.test(text)) return { ...base, format: "sentence", minWords: 4, maxWords: 45 };
  if (/\b(list|bullet|steps|enumerate)\b/.test(text) || (count && countMatch?.[2] !== "sentences")) {
    return { ...base, format: "list", ...(count ? { items: count } : {}), minWords: (count ?? 3) * 2, maxWords: (count ?? 10) * 60 };
  }
  if (/^\s*(how many|what is \d|calculate|compute)\b/.test(text)) return { ...base, format: "number", minWords: 1, maxWords: 60 };
  if (/\b(brief|briefly|short|concise|summar)/.test(text)) return { ...base, format: "text", minWords: 5, maxWords: 120 };
  if (/\b(detailed|in depth|essay|thorough|comprehensive)\b/.test(text)) return { ...base, format: "text", minWords: 120, maxWords: 1_500 };
  return { ...base, format: "text", minWords: 8, maxWords: 600 };
}

function lengthScore(words: number, expectation: PromptExpectation): number {
  if (words === 0) return 0;
  if (words < expectation.minWords) return words / expectation.minWords;
  if (words > expectation.maxWords) return expectation.maxWords / words;
  return 1;
}

function keywordScore(answer: string, keywords: string[]): number {
  if (keywords.length === 0) return 1;
  const present = new Set((answer.toLowerCase().match(/[a-z][a-z-]{3,}/g) ?? []).map(stem));
  return keywords.filter((keyword) => present.has(stem(keyword))).length / keywords.length;
}

function formatScore(answer: string, expectation: PromptExpectation): number {
  const text = answer.trim();
  if (text === "") return 0;
  const lines = text.split("\n");
  switch (expectation.format) {
    case "json": {
      const candidate = /```(?:json)?\s*\n([\s\S]*?)```/.exec(text)?.[1] ?? text;
      try {
        JSON.parse(candidate);
        return candidate === text ? 1 : 0.8;
      } catch {
        return 0;
      }
    }
    case "list": {
      const items = lines.filter((line) => /^\s*(?:[-*•]|\d+[.)])\s+\S/.test(line)).length;
      if (items === 0) return 0;
      if (expectation.items === undefined) return 1;
      return Math.min(items, expectation.items) / Math.max(items, expectation.items);
    }
    case "code":
      return /```/.test(text)
        ? 1
        : lines.some((line) => /[;{}()=]\s*$|^\s*(def|function|const|let|class|return|import)\b/.test(line))
          ? 0.6
          : 0;
    case "table":
      return lines.filter((line) => /^\s*\|.*\|\s*$/.test(line)).length >= 2 ? 1 : 0;
    case "sentence": {
      const sentences = text.split(/[.!?]+(?:\s|$)/).filter((part) => part.trim() !== "").length;
      return sentences <= 1 ? 1 : 1 / sentences;
    }
    case "word":
      return text.split(/\s+/).length <= 3 ? 1 : 0;
    case "number":
      return /-?\d/.test(text) ? 1 : 0;
    default:
      return 1;
  }
}

const round = (value: number) => Math.round(value * 1000) / 1000;

/**
 * Scores one answer against what its prompt asked for, each part 0..1: length within the range the
 * prompt implies, share of the prompt's content keywords present, adherence to the asked format.
 *
 * @example
 * scoreAnswer("List 3 colors", "- red\n- green\n- blue").formatAdherence; // 1
 */
export function scoreAnswer(
  prompt: string,
  answer: string,
): { length: number; instructionKeywords: number; formatAdherence: number; overall: number; expectedFormat: string } {
  const expectation = expectationOf(prompt);
  const words = answer.trim() === "" ? 0 : answer.trim().split(/\s+/).length;
  const length = round(lengthScore(words, expectation));
  const instructionKeywords = round(keywordScore(answer, expectation.keywords));
  const formatAdherence = round(formatScore(answer, expectation));
  return {
    length,
    instructionKeywords,
    formatAdherence,
    overall: round((length + instructionKeywords + formatAdherence) / 3),
    expectedFormat: expectation.format,
  };
}
