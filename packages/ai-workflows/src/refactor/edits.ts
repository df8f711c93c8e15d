/** One text change at [start, end) of the original source. */
export interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Applies each improvement's edits all-or-nothing, in priority order: an improvement whose edits
 * overlap one already accepted is left out (and reported as not applied).
 */
export function applyEdits(source: string, groups: Edit[][]): { output: string; accepted: boolean[] } {
  const taken: Edit[] = [];
  const overlaps = (edit: Edit) =>
    taken.some(
      (other) =>
        (edit.start < other.end && other.start < edit.end) ||
        (edit.start === edit.end && other.start === other.end && edit.start === other.start),
    );
  const accepted = groups.map((group) => {
    if (group.length === 0 || group.some(overlaps)) return false;
    taken.push(...group);
    return true;
  });
  taken.sort((a, b) => b.start - a.start || b.end - a.end);
  let output = source;
  for (const edit of taken) output = output.slice(0, edit.start) + edit.text + output.slice(edit.end);
  return { output, accepted };
}
