// Published manifests leave out the workspace's "@conduit-ai/source" export condition: it
// points at src/, which the packages do not ship (tests and typecheck read src through it).
// pnpm calls this on `pnpm pack` and `pnpm publish` (changeset publish), never on install.
function withoutSourceCondition(target) {
  if (typeof target !== "object" || target === null) return target;
  const entries = Object.entries(target).filter(([condition]) => condition !== "@conduit-ai/source");
  return Object.fromEntries(entries.map(([key, value]) => [key, withoutSourceCondition(value)]));
}

module.exports = {
  hooks: {
    beforePacking(manifest) {
      if (manifest.exports) manifest.exports = withoutSourceCondition(manifest.exports);
      return manifest;
    },
  },
};
