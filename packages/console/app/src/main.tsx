import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { type Permission, type SessionInfo, type SignedOutInfo, api, can, onSignedOut } from "./api.js";
import { AuditPage } from "./pages/audit.js";
import { AccountsPage } from "./pages/accounts.js";
import { HealthPage } from "./pages/health.js";
import { KeysPage } from "./pages/keys.js";
import { LivePage } from "./pages/live.js";
import { Overview } from "./pages/overview.js";
import { ReconcilePage } from "./pages/reconcile.js";
import { SignIn } from "./pages/sign-in.js";
import { UsagePage } from "./pages/usage.js";
import "./styles.css";

/**
 * Each page and what a role needs to see it: the console hides the rest. `orgWide` pages show the
 * whole organization (a vendor's bill), which the admin API refuses a team-admin.
 */
const PAGES: ReadonlyArray<{ id: string; title: string; needs: Permission; orgWide?: boolean }> = [
  { id: "overview", title: "Overview", needs: "console.read" },
  { id: "accounts", title: "Accounts", needs: "console.read" },
  { id: "keys", title: "Keys and teams", needs: "keys.read" },
  { id: "usage", title: "Usage", needs: "usage.read" },
  { id: "reconcile", title: "Reconciliation", needs: "usage.read", orgWide: true },
  { id: "audit", title: "Audit", needs: "audit.read" },
  { id: "live", title: "Live requests", needs: "console.read" },
  { id: "health", title: "Health", needs: "console.read" },
];
type PageId = string;

const pageFromHash = (): PageId => location.hash.replace(/^#\/?/, "") || "overview";

function App() {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [signedOut, setSignedOut] = useState<SignedOutInfo>({ signedIn: false });
  const [endSessionUrl, setEndSessionUrl] = useState<string>();
  const [page, setPage] = useState<PageId>(pageFromHash());

  useEffect(() => {
    api<SessionInfo | SignedOutInfo>("session").then(
      (info) => {
        if (info.signedIn) setSession(info);
        else {
          setSignedOut(info);
          setSession(null);
        }
      },
      () => setSession(null),
    );
    const offSignedOut = onSignedOut(() => setSession(null));
    const onHash = () => setPage(pageFromHash());
    window.addEventListener("hashchange", onHash);
    return () => {
      offSignedOut();
      window.removeEventListener("hashchange", onHash);
    };
  }, []);

  const teamScoped = session?.role.startsWith("team-admin:") ?? false;
  const visible = session ? PAGES.filter((entry) => can(session, entry.needs) && !(entry.orgWide && teamScoped)) : [];
  // A page the role cannot see (or an unknown one) shows the first the role can.
  const shown = visible.find((entry) => entry.id === page)?.id ?? visible[0]?.id ?? "";

  useEffect(() => {
    const title = PAGES.find((entry) => entry.id === shown)?.title ?? "";
    document.title = session ? `${title} · Conduit console` : "Sign in · Conduit console";
  }, [shown, session]);

  if (session === undefined) return <main class="loading">Loading…</main>;
  if (session === null)
    return (
      <SignIn
        sso={signedOut.sso}
        endSession={endSessionUrl && signedOut.sso ? { url: endSessionUrl, provider: signedOut.sso.name } : undefined}
        onSignedIn={setSession}
      />
    );

  const signOut = async () => {
    const ended = await api<{ endSessionUrl?: string; sso?: { name: string } }>("session", { method: "DELETE" }).catch(() => undefined);
    setEndSessionUrl(ended?.endSessionUrl);
    const info = await api<SessionInfo | SignedOutInfo>("session").catch(() => undefined);
    if (info && !info.signedIn) setSignedOut(info);
    setSession(null);
  };

  return (
    <>
      <header class="top">
        <span class="brand">Conduit console</span>
        <nav aria-label="Pages">
          {visible.map((entry) => (
            <a key={entry.id} href={`#/${entry.id}`} aria-current={entry.id === shown ? "page" : undefined}>
              {entry.title}
            </a>
          ))}
        </nav>
        <span class="who" data-testid="signed-in-as">
          {session.actor.hint ?? session.actor.id} · {session.role}
        </span>
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        <h1 class="visually-hidden">{PAGES.find((entry) => entry.id === shown)?.title}</h1>
        {shown === "" && <p>This role ({session.role}) has no page in the console.</p>}
        {shown === "overview" && <Overview />}
        {shown === "accounts" && <AccountsPage session={session} />}
        {shown === "keys" && <KeysPage session={session} />}
        {shown === "usage" && <UsagePage />}
        {shown === "reconcile" && <ReconcilePage />}
        {shown === "audit" && <AuditPage />}
        {shown === "live" && <LivePage />}
        {shown === "health" && <HealthPage />}
      </main>
    </>
  );
}

render(<App />, document.getElementById("app") as HTMLElement);
