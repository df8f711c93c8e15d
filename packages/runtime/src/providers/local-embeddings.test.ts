import { describe, expect, it } from "vitest";
import { cosineSimilarity, embedLocally, LOCAL_EMBEDDING_DIMENSION } from "./local-embeddings.js";

describe("local embeddings", () => {
  it("returns fixed-dimension unit vectors, identical for identical text", () => {
    const vector = embedLocally("The quick brown fox");
    expect(vector).toHaveLength(LOCAL_EMBEDDING_DIMENSION);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 6);
    expect(embedLocally("The quick brown fox")).toEqual(vector);
  });

  it("scores similar texts higher than unrelated ones", () => {
    const query = embedLocally("How do I reset my password?");
    const similar = embedLocally("how can I reset the password of my account");
    const unrelated = embedLocally("Tomatoes grow best in warm sunny gardens");
    expect(cosineSimilarity(query, similar)).toBeGreaterThan(cosineSimilarity(query, unrelated) + 0.2);
  });

  it("embeds empty text as the zero vector instead of NaN", () => {
    expect(embedLocally("").every((value) => value === 0)).toBe(true);
  });
});
