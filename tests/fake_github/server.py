#!/usr/bin/env python3
"""A stand-in for GitHub's REST API on 127.0.0.1, for the crawl tests.

It speaks the shapes `mine crawl` depends on: `search/repositories` with `total_count`,
`incomplete_results`, 100-per-page pagination through `Link` headers, the 1000-result cap
(pages past it answer 422 like GitHub), primary rate-limit headers (403 with
X-RateLimit-Remaining: 0 when exhausted), secondary limits (403 with Retry-After), injected
502s, and ETag / If-None-Match -> 304. `repos/<owner>/<name>` answers single repositories.

Repository search understands what GitHub's does: free words matched in the fields `in:` names
(name and description when it names none; also topics, readme), `topic:`, `language:`,
`stars:`, `created:`, `fork:`, `archived:`. `search/code` searches the files a repository lists
under "code" ({path, size, text}; repositories with "code_indexed": false are not in the
index, as GitHub leaves some out): free words (OR between them allowed) in the text, `size:`,
`extension:`, `repo:`, `language:`, `in:file`; each item carries a minimal repository without
stars or clone URL, so a client must look them up. `stars:` is refused in code search.

Rate limits are kept per resource, as GitHub does (X-RateLimit-Resource): `search`
(--rate-limit per --rate-window), `code_search` (--code-search-rate-limit per --rate-window)
and `core` (--core-rate-limit per --core-rate-window). Every request is logged with its
resource and what the server's limits were when it arrived, so a test can assert that the
client never spoke to a resource while it had been told to wait (`GET /_log`).

Prints `PORT <n>` on stdout once listening (port 0 asks the OS for a free one).
"""
import argparse
import datetime as dt
import hashlib
import json
import math
import os
import random
import re
import sys
import threading
import zlib
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SEARCH_CAP = 1000
CODE_INDEX_MAX_BYTES = 384 * 1024  # GitHub indexes only smaller files for code search


def iso(ts):
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_when(text, upper):
    """GitHub accepts dates and ISO date-times in `created:` qualifiers."""
    text = text.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        d = dt.datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=dt.timezone.utc)
        t = d.timestamp()
        # A bare date as an upper bound means the whole day.
        return t + 86399 if upper else t
    text = text.replace("Z", "+00:00")
    return dt.datetime.fromisoformat(text).timestamp()


def generate_population(count, seed, clone_base):
    """Skewed star counts like the real site: most repositories sit right at the threshold.

    More than 1000 share the single star value 100, so star splitting alone cannot get under
    the cap and the client has to split by creation date.
    """
    rng = random.Random(seed)
    size_rng = random.Random(seed + 1)  # its own stream: the repositories stay what they were
    repos = []
    start = dt.datetime(2012, 1, 1, tzinfo=dt.timezone.utc).timestamp()
    end = dt.datetime(2024, 12, 31, tzinfo=dt.timezone.utc).timestamp()
    for i in range(count):
        if i < count * 0.48:
            stars = 100
        elif i < count * 0.52:
            stars = rng.randint(20, 99)  # below the usual threshold: must not be reported
        else:
            stars = min(int(100 + rng.paretovariate(0.9) * 10), 90000)
        created = rng.uniform(start, end)
        if i % 97 == 0:
            created = start + 3600 * 24 * 200 + (i % 5)  # a burst of repos created the same seconds
        owner = "owner%03d" % (i % 250)
        name = "kernels-%04d" % i
        repos.append({
            "id": 100000 + i,
            "name": name,
            "full_name": "%s/%s" % (owner, name),
            "owner": {"login": owner},
            "description": "triton kernels number %d" % i,
            "language": "Python" if i % 7 else "Cuda",
            "stargazers_count": stars,
            "fork": i % 53 == 0,
            "archived": i % 61 == 0,
            "size": 1000 + (i * 37) % 50000,
            "default_branch": ["main", "master", "trunk"][i % 3],
            "created_at": iso(created),
            "pushed_at": iso(created + 86400 * 30),
            "license": None if i % 4 == 0 else {"spdx_id": ["MIT", "Apache-2.0", "BSD-3-Clause"][i % 3]},
            "clone_url": "%s%s/%s.git" % (clone_base, owner, name),
            "topics": ["triton", "gpu"] if i % 11 == 0 else ["gpu"],
            # One file per repository holds a kernel (a notebook in every tenth), so `triton.jit`
            # matches more files than code search's 1000-result cap: only size slicing reaches all.
            "code": [{"path": "kernels/k%d.%s" % (i, "ipynb" if i % 10 == 0 else "py"),
                      "size": int(math.exp(size_rng.uniform(math.log(200), math.log(CODE_INDEX_MAX_BYTES)))),
                      "text": "import triton\n@triton.jit\ndef k%d(x): pass\n" % i},
                     {"path": "README.md", "size": 500, "text": "kernels"}],
        })
    return repos


class State:
    def __init__(self, args, repos):
        self.args = args
        self.repos = repos
        self.by_name = {r["full_name"].lower(): r for r in repos}
        self.lock = threading.Lock()
        self.log = []
        self.count = 0
        self.budgets = {r: Budget(*limits_of(args, r)) for r in RESOURCES}
        self.secondary_until = 0.0      # secondary limit: Retry-After deadline
        self.served_502 = set()
        self.served_incomplete = set()


RESOURCES = ("core", "search", "code_search", "graphql")


def limits_of(args, resource):
    """(requests, window seconds) of a rate-limit resource."""
    if resource == "search":
        return args.rate_limit, args.rate_window
    if resource == "code_search":
        return args.code_search_rate_limit, args.rate_window
    return args.core_rate_limit, args.core_rate_window


def resource_of(path):
    if path.startswith("/search/code"):
        return "code_search"
    if path.startswith("/search/"):
        return "search"
    if path.startswith("/graphql"):
        return "graphql"
    return "core"


class Budget:
    """One rate-limit resource: its own window, count and exhaustion deadline."""

    def __init__(self, limit, window):
        self.limit = limit
        self.window = window
        self.window_start = time.time()
        self.used = 0
        self.exhausted_until = 0.0  # the client was told 0 left: nothing may arrive before this

    def roll(self, now):
        if now >= self.window_start + self.window:
            self.window_start = now
            self.used = 0

    def reset_at(self):
        return int(self.window_start + self.window) + 1


def search_fields(query):
    """The fields free words are matched in: what `in:` names, else name and description."""
    fields = set()
    for term in query.split():
        if term.startswith("in:"):
            for f in term[3:].split(","):
                if f not in ("name", "description", "topics", "readme"):
                    raise ValueError("unsupported in: field " + f)
                fields.add(f)
    return fields or {"name", "description"}


def field_text(repo, field):
    if field == "topics":
        return " ".join(repo.get("topics") or [])
    return repo.get(field) or ""


def matches(repo, query):
    """Applies the qualifiers `mine` sends; free words must appear in one of the `in:` fields.

    Like GitHub, forks are left out unless the query says fork:true or fork:only.
    """
    if repo["fork"] and not re.search(r"\bfork:(true|only)\b", query):
        return False
    fields = search_fields(query)
    text = " ".join(field_text(repo, f) for f in sorted(fields)).lower()
    for term in query.split():
        if ":" in term:
            key, _, value = term.partition(":")
            if key == "stars":
                s = repo["stargazers_count"]
                if value.startswith(">="):
                    if s < int(value[2:]):
                        return False
                elif value.startswith(">"):
                    if s <= int(value[1:]):
                        return False
                elif ".." in value:
                    lo, hi = value.split("..")
                    if lo != "*" and s < int(lo):
                        return False
                    if hi != "*" and s > int(hi):
                        return False
                elif s != int(value):
                    return False
            elif key == "created":
                c = parse_when(repo["created_at"], False)
                if ".." in value:
                    lo, hi = value.split("..")
                    if lo != "*" and c < parse_when(lo, False):
                        return False
                    if hi != "*" and c > parse_when(hi, True):
                        return False
                elif value.startswith(">="):
                    if c < parse_when(value[2:], False):
                        return False
                else:
                    raise ValueError("unsupported created qualifier " + value)
            elif key == "language":
                if (repo["language"] or "").lower() != value.lower():
                    return False
            elif key == "fork":
                if value == "only" and not repo["fork"]:
                    return False
                if value not in ("true", "only") and repo["fork"]:
                    return False
            elif key == "archived":
                if repo["archived"] != (value == "true"):
                    return False
            elif key == "topic":
                if value.lower() not in [t.lower() for t in repo.get("topics") or []]:
                    return False
            elif key in ("in", "sort"):
                continue
            else:
                raise ValueError("unsupported qualifier " + key)
        else:
            if term.strip('"').lower() not in text:
                return False
    return True


def parse_code_query(query):
    """(alternatives, qualifiers): free words, where `a OR b` gives alternatives that each must
    be in a file, and the qualifier list."""
    alternatives, current, qualifiers = [], [], []
    for term in re.findall(r'"[^"]*"|\S+', query):
        if term == "OR":
            alternatives.append(current)
            current = []
        elif ":" in term and not term.startswith('"'):
            key, _, value = term.partition(":")
            if key == "stars":
                raise ValueError("stars is not a code search qualifier")
            if key not in ("size", "extension", "repo", "language", "in", "user", "org", "path", "filename"):
                raise ValueError("unsupported code search qualifier " + key)
            qualifiers.append((key, value))
        else:
            current.append(term.strip('"').lower())
    alternatives.append(current)
    if not any(alternatives):
        raise ValueError("code search needs at least one search term")
    return alternatives, qualifiers


def in_range(n, value):
    if value.startswith(">="):
        return n >= int(value[2:])
    if value.startswith("<="):
        return n <= int(value[2:])
    if value.startswith(">"):
        return n > int(value[1:])
    if value.startswith("<"):
        return n < int(value[1:])
    if ".." in value:
        lo, hi = value.split("..")
        return (lo == "*" or n >= int(lo)) and (hi == "*" or n <= int(hi))
    return n == int(value)


def code_matches(repo, f, alternatives, qualifiers):
    for key, value in qualifiers:
        if key == "size" and not in_range(f["size"], value):
            return False
        if key == "extension" and not f["path"].lower().endswith("." + value.lower()):
            return False
        if key == "repo" and repo["full_name"].lower() != value.lower():
            return False
        if key in ("user", "org") and repo["owner"]["login"].lower() != value.lower():
            return False
        if key == "language":
            ext = {"python": (".py",), "cuda": (".cu", ".cuh"), "jupyter notebook": (".ipynb",)}.get(value.lower(), ())
            if not f["path"].lower().endswith(ext):
                return False
        if key == "path" and not f["path"].startswith(value.strip("/")):
            return False
        if key == "filename" and os.path.basename(f["path"]) != value:
            return False
    text = f.get("text", "").lower()
    return any(alt and all(w in text for w in alt) for alt in alternatives)


def public(repo):
    """A repository as the API shows it: the index fields are the stand-in's own."""
    return {k: v for k, v in repo.items() if k not in ("code", "readme", "code_indexed")}


def minimal_repository(repo):
    """What code search items carry: no stars, no clone URL, no pushed_at."""
    return {"id": repo.get("id"), "name": repo["name"], "full_name": repo["full_name"],
            "owner": {"login": repo["owner"]["login"]}, "private": False, "fork": repo["fork"],
            "html_url": "https://github.invalid/" + repo["full_name"]}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-github/1"

    def log_message(self, fmt, *args):
        if self.server.state.args.verbose:
            sys.stderr.write("fake-github: " + (fmt % args) + "\n")

    def send_json(self, status, obj, headers=None, etag=True):
        body = json.dumps(obj, indent=None).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        tag = None
        if etag and status == 200:
            tag = 'W/"%s"' % hashlib.sha1(body).hexdigest()
            self.send_header("ETag", tag)
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        if status == 304:
            self.send_header("Content-Length", "0")
            self.end_headers()
            return tag
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return tag

    def do_GET(self):
        st = self.server.state
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/_log":
            with st.lock:
                self.send_json(200, st.log, etag=False)
            return
        if url.path == "/_population":
            self.send_json(200, st.repos, etag=False)
            return
        now = time.time()
        resource = resource_of(url.path)
        entry = {"t": now, "path": self.path, "resource": resource, "violation": None}
        with st.lock:
            st.count += 1
            n = st.count
            budget = st.budgets[resource]
            if now < budget.exhausted_until:
                entry["violation"] = "request while the %s rate limit was exhausted" % resource
            elif now < st.secondary_until:
                entry["violation"] = "request before Retry-After elapsed"
            budget.roll(now)
            st.log.append(entry)

        if st.args.redirect_repos_to and url.path.startswith("/repos/"):
            # A renamed repository answers 301; here the new place is another server.
            self.send_response(301)
            self.send_header("Location", st.args.redirect_repos_to.rstrip("/") + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            entry["status"] = 301
            return

        token = st.args.require_token
        if token:
            auth = self.headers.get("Authorization", "")
            if auth not in ("token " + token, "Bearer " + token):
                entry["status"] = 401
                # --echo-auth: a careless server that repeats what it was sent, so a test can
                # show that the client never passes such words on.
                said = "Bad credentials" + (" (got %r)" % auth if st.args.echo_auth else "")
                self.send_json(401, {"message": said}, etag=False)
                return

        # Injected failures come before rate accounting, as a proxy in front of GitHub would.
        if st.args.fail_502_every and n % st.args.fail_502_every == 0:
            entry["status"] = 502
            self.send_json(502, {"message": "Server Error"}, etag=False)
            return
        if st.args.secondary_every and n % st.args.secondary_every == 0:
            with st.lock:
                st.secondary_until = time.time() + st.args.retry_after
            entry["status"] = 403
            self.send_json(403, {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                                 "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"},
                           {"Retry-After": st.args.retry_after}, etag=False)
            return

        inm = self.headers.get("If-None-Match")
        with st.lock:
            limit = budget.limit
            # 304s do not count against the limit on GitHub either; decided once the body is known.
            remaining_before = limit - budget.used
            reset = budget.reset_at()
        if remaining_before <= 0:
            with st.lock:
                budget.exhausted_until = max(budget.exhausted_until, float(reset))
            entry["status"] = 403
            self.send_json(403, {"message": "API rate limit exceeded for 127.0.0.1.",
                                 "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"},
                           {"X-RateLimit-Limit": limit, "X-RateLimit-Remaining": 0, "X-RateLimit-Reset": reset,
                            "X-RateLimit-Used": limit, "X-RateLimit-Resource": resource}, etag=False)
            return

        try:
            status, obj, extra = self.route(url)
        except ValueError as e:
            status, obj, extra = 422, {"message": "Validation Failed", "errors": [{"message": str(e)}]}, {}

        if st.args.echo_auth_in_body and isinstance(obj, dict):
            obj = dict(obj, seen_auth=self.headers.get("Authorization", ""))
        body = json.dumps(obj).encode()
        tag = 'W/"%s"' % hashlib.sha1(body).hexdigest()
        not_modified = status == 200 and inm is not None and inm == tag
        with st.lock:
            if not not_modified:
                budget.used += 1
            remaining = limit - budget.used
            if remaining <= 0:
                # The client was told "0 left, reset at R": anything it sends before R is a violation.
                budget.exhausted_until = max(budget.exhausted_until, float(reset))
        headers = {"X-RateLimit-Limit": limit, "X-RateLimit-Remaining": max(remaining, 0), "X-RateLimit-Reset": reset,
                   "X-RateLimit-Used": budget.used, "X-RateLimit-Resource": resource}
        headers.update(extra)
        entry["status"] = 304 if not_modified else status
        if not_modified:
            headers["ETag"] = tag
            self.send_json(304, {}, headers, etag=False)
        else:
            self.send_json(status, obj, headers)

    def paged(self, url, params, found, q):
        """One page of a search answer: the 1000-result cap, an injected incomplete page, and
        the Link header GitHub sends."""
        st = self.server.state
        per_page = min(int(params.get("per_page", ["30"])[0]), 100)
        page = int(params.get("page", ["1"])[0])
        total = len(found)
        reachable = min(total, SEARCH_CAP)
        if (page - 1) * per_page >= SEARCH_CAP:
            raise ValueError("Only the first 1000 search results are available")
        items = found[(page - 1) * per_page: min(page * per_page, reachable)]
        incomplete = False
        key = (url.path, q, page)
        if st.args.incomplete_every and len(st.served_incomplete) < 3 and zlib.crc32(repr(key).encode()) % st.args.incomplete_every == 0 \
                and key not in st.served_incomplete:
            # GitHub's search timed out: a short page flagged incomplete; a retry gets the full one.
            st.served_incomplete.add(key)
            items = items[: len(items) // 2]
            incomplete = True
        last_page = max(1, (reachable + per_page - 1) // per_page)
        links = []
        base = "http://%s:%d%s" % (self.server.server_address[0], self.server.server_address[1], url.path)

        def link(p, rel):
            qs = dict((k, v[0]) for k, v in params.items())
            qs["page"] = str(p)
            return '<%s?%s>; rel="%s"' % (base, urllib.parse.urlencode(qs), rel)
        if page > 1:
            links.append(link(page - 1, "prev"))
        if page < last_page:
            links.append(link(page + 1, "next"))
            links.append(link(last_page, "last"))
        if page > 1:
            links.append(link(1, "first"))
        extra = {"Link": ", ".join(links)} if links else {}
        return 200, {"total_count": total, "incomplete_results": incomplete, "items": items}, extra

    def route(self, url):
        st = self.server.state
        params = urllib.parse.parse_qs(url.query)
        if url.path == "/search/repositories":
            q = params.get("q", [""])[0]
            found = [r for r in st.repos if matches(r, q)]
            if params.get("sort", [""])[0] == "stars":
                desc = params.get("order", ["desc"])[0] != "asc"
                found.sort(key=lambda r: (r["stargazers_count"], r.get("id", 0), r["full_name"]), reverse=desc)
            return self.paged(url, params, [public(r) for r in found], q)
        if url.path == "/search/code":
            if not self.headers.get("Authorization"):
                # GitHub's code search answers only authenticated requests.
                return 401, {"message": "Requires authentication"}, {}
            if st.args.code_search_status:
                # An injected refusal, as GitHub gives one when it cannot run a code search.
                return st.args.code_search_status, {"message": "Code search is unavailable"}, {}
            q = params.get("q", [""])[0]
            alternatives, qualifiers = parse_code_query(q)
            found = []
            for r in st.repos:
                if r.get("code_indexed", True) is False:
                    continue  # GitHub leaves some repositories out of its code index
                for f in r.get("code") or []:
                    if f["size"] <= CODE_INDEX_MAX_BYTES and code_matches(r, f, alternatives, qualifiers):
                        found.append({"name": os.path.basename(f["path"]), "path": f["path"],
                                      "sha": hashlib.sha1(f.get("text", "").encode()).hexdigest(),
                                      "repository": minimal_repository(r), "score": 1.0})
            return self.paged(url, params, found, q)
        m = re.fullmatch(r"/repos/([^/]+)/([^/]+)", url.path)
        if m:
            repo = st.by_name.get(("%s/%s" % (m.group(1), m.group(2))).lower())
            if repo is None:
                return 404, {"message": "Not Found"}, {}
            # The index fields are the stand-in's own, not part of GitHub's repository object.
            return 200, public(repo), {}
        return 404, {"message": "Not Found"}, {}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--population", type=int, default=2500, help="generated repositories")
    ap.add_argument("--population-file", help="JSON list of repositories instead of a generated population")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--clone-base", default="git://127.0.0.1/", help="clone_url prefix of generated repos")
    ap.add_argument("--rate-limit", type=int, default=1000000, help="search requests per window (GitHub: 30)")
    ap.add_argument("--rate-window", type=float, default=60.0, help="seconds, of search and code_search")
    ap.add_argument("--code-search-rate-limit", type=int, default=1000000, help="code_search requests per window (GitHub: 10)")
    ap.add_argument("--core-rate-limit", type=int, default=1000000, help="core requests per core window (GitHub: 5000)")
    ap.add_argument("--core-rate-window", type=float, default=3600.0, help="seconds")
    ap.add_argument("--secondary-every", type=int, default=0, help="every Nth request gets a secondary-limit 403")
    ap.add_argument("--retry-after", type=int, default=1)
    ap.add_argument("--fail-502-every", type=int, default=0, help="every Nth request gets a 502")
    ap.add_argument("--incomplete-every", type=int, default=0)
    ap.add_argument("--code-search-status", type=int, default=0, help="answer every code search with this status")
    # From the environment too, so a test can keep the token off every command line it checks.
    ap.add_argument("--require-token", default=os.environ.get("FAKE_GITHUB_REQUIRE_TOKEN", ""))
    ap.add_argument("--redirect-repos-to", default="", help="answer repos/<owner>/<name> with a 301 to this base URL")
    ap.add_argument("--echo-auth", action="store_true", help="401 answers quote the Authorization header")
    ap.add_argument("--echo-auth-in-body", action="store_true",
                    help="every answer carries the Authorization header it was sent (field 'seen_auth')")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if args.population_file:
        with open(args.population_file) as f:
            repos = json.load(f)
    else:
        repos = generate_population(args.population, args.seed, args.clone_base)
    httpd = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    httpd.daemon_threads = True
    httpd.state = State(args, repos)
    print("PORT %d" % httpd.server_address[1], flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
