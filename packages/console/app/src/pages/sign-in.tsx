import { useState } from "preact/hooks";
import { type SessionInfo, api } from "../api.js";

export function SignIn(props: { onSignedIn: (session: SessionInfo) => void }) {
  const [credential, setCredential] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      await api("session", { method: "POST", body: { credential } });
      setCredential("");
      setError(undefined);
      props.onSignedIn(await api<SessionInfo>("session"));
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Conduit console</h1>
      <form class="form" onSubmit={submit} aria-label="Sign in">
        <label>
          Admin key
          <input
            name="credential"
            type="password"
            autoComplete="current-password"
            required
            value={credential}
            onInput={(event) => setCredential(event.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p class="problem" role="alert">
            {error}
          </p>
        )}
      </form>
      <p class="muted">The key stays on the server: this browser keeps only a session cookie, for 8 hours at most.</p>
    </main>
  );
}
