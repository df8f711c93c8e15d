import { useEffect, useRef, useState } from "preact/hooks";

/** The new secret, shown this once in a modal dialog; closing it forgets the secret. */
export function SecretOnce(props: { name: string; secret: string; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <dialog ref={dialog} class="secret" aria-labelledby="secret-title" onClose={props.onClose}>
      <h2 id="secret-title">Key "{props.name}"</h2>
      <p>Copy this secret now: it is shown only once and cannot be read again.</p>
      <output class="secret-value" data-testid="new-secret">
        {props.secret}
      </output>
      <div class="actions">
        <button type="button" onClick={copy}>
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" onClick={() => dialog.current?.close()}>
          Done
        </button>
      </div>
    </dialog>
  );
}
