import { useState } from "preact/hooks";
import { type SessionInfo, api, apiUrl } from "../api.js";

export function SignIn(props: {
  onSignedIn: (session: SessionInfo) => void;
  /** Single sign-on, when the server offers it. */
  sso?: { name: string } | undefined;
  /** After a single sign-on session ended: the provider's own sign-out, when it has one. */
  endSession?: { url: string; provider: string } | undefined;
}) {
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
      {props.endSession && (
        <p class="notice" role="status">
          Signed out of the console. <a href={props.endSession.url}>Sign out of {props.endSession.provider} too</a>
        </p>
      )}
      {props.sso && (
        <p>
          <a class="button sso" href={apiUrl("sso/start")}>
            Sign in with {props.sso.name}
          </a>
        </p>
      )}
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
