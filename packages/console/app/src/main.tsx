import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { type SessionInfo, api, onSignedOut } from "./api.js";
import { AccountsPage } from "./pages/accounts.js";
import { HealthPage } from "./pages/health.js";
import { KeysPage } from "./pages/keys.js";
import { LivePage } from "./pages/live.js";
import { Overview } from "./pages/overview.js";
import { SignIn } from "./pages/sign-in.js";
import { UsagePage } from "./pages/usage.js";
import "./styles.css";

const PAGES = [
  { id: "overview", title: "Overview" },
  { id: "accounts", title: "Accounts" },
  { id: "keys", title: "Keys and teams" },
  { id: "usage", title: "Usage" },
  { id: "live", title: "Live requests" },
  { id: "health", title: "Health" },
] as const;
type PageId = (typeof PAGES)[number]["id"];

const pageFromHash = (): PageId => {
  const id = location.hash.replace(/^#\/?/, "");
  return (PAGES.find((page) => page.id === id)?.id ?? "overview") as PageId;
};

function App() {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [page, setPage] = useState<PageId>(pageFromHash());

  useEffect(() => {
    api<SessionInfo>("session").then(
      (info) => setSession(info.signedIn ? info : null),
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

  useEffect(() => {
    const title = PAGES.find((entry) => entry.id === page)?.title ?? "";
    document.title = session ? `${title} · Conduit console` : "Sign in · Conduit console";
  }, [page, session]);

  if (session === undefined) return <main class="loading">Loading…</main>;
  if (session === null) return <SignIn onSignedIn={setSession} />;

  const signOut = async () => {
    await api("session", { method: "DELETE" }).catch(() => undefined);
    setSession(null);
  };

  return (
    <>
      <header class="top">
        <span class="brand">Conduit console</span>
        <nav aria-label="Pages">
          {PAGES.map((entry) => (
            <a key={entry.id} href={`#/${entry.id}`} aria-current={entry.id === page ? "page" : undefined}>
              {entry.title}
            </a>
          ))}
        </nav>
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>
        <h1 class="visually-hidden">{PAGES.find((entry) => entry.id === page)?.title}</h1>
        {page === "overview" && <Overview />}
        {page === "accounts" && <AccountsPage session={session} />}
        {page === "keys" && <KeysPage />}
        {page === "usage" && <UsagePage />}
        {page === "live" && <LivePage />}
        {page === "health" && <HealthPage />}
      </main>
    </>
  );
}

render(<App />, document.getElementById("app") as HTMLElement);
