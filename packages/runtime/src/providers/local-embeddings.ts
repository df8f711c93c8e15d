/** Dimension of the local embedding vectors. */
export const LOCAL_EMBEDDING_DIMENSION = 256;
export const LOCAL_EMBEDDING_MODEL = "hashed-ngram-256";

/** 32-bit FNV-1a: fast, dependency-free and stable across processes, so vectors are reproducible. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Embeds text locally as hashed character 3-grams (feature hashing), L2-normalized,
 * so texts sharing words and word pieces have a higher cosine similarity.
 *
 * @example
 * const vector = embedLocally("hello world"); // 256 numbers, length 1
 */
export function embedLocally(text: string, dimension = LOCAL_EMBEDDING_DIMENSION): number[] {
  const vector = new Array<number>(dimension).fill(0);
  // Padding with spaces lets word starts and ends form their own n-grams.
  const normalized = ` ${text.toLowerCase().replace(/\s+/g, " ").trim()} `;
  for (let index = 0; index + 3 <= normalized.length; index++) {
    const hash = fnv1a(normalized.slice(index, index + 3));
    // A second hash bit picks the sign so collisions cancel out instead of piling up.
    const sign = (hash & 0x80000000) === 0 ? 1 : -1;
    const slot = hash % dimension;
    vector[slot] = (vector[slot] ?? 0) + sign;
  }
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

/** Cosine similarity of two equal-length vectors. */
export function cosineSimilarity(left: number[], right: number[]): number {
  let dot = 0;
  let leftNorm = 0;
  let rightNorm = 0;
  for (let index = 0; index < left.length; index++) {
    const a = left[index] ?? 0;
    const b = right[index] ?? 0;
    dot += a * b;
    leftNorm += a * a;
    rightNorm += b * b;
  }
  return leftNorm === 0 || rightNorm === 0 ? 0 : dot / Math.sqrt(leftNorm * rightNorm);
}
