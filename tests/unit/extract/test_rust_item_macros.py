"""Rust items inside a macro call: what a braced call at item level holds is found, with
the scope around the call, whatever the nesting. Snippets shaped on tokio 1.24.2
(`src/net/lookup_host.rs`, `src/runtime/coop.rs`, `src/io/split.rs`); the whole symbol
list is compared."""

from __future__ import annotations

from symfind.extract import extract_symbols
from symfind.extract.rewrite.item_macros import MAX_DEPTH

from tests.unit.extract.conftest import ParseCount

GATED = b"""\
cfg_net! {
    use std::net::SocketAddr;

    /// Performs a DNS resolution.
    pub async fn lookup_host<T>(host: T) -> io::Result<SocketAddr> {
        addr::to_socket_addrs(host).await
    }
}

cfg_coop! {
    cfg_rt! {
        /// Returns `Poll::Pending` once the budget is spent.
        pub(crate) fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending> {
            context::budget(|cell| cell.get())
        }
    }

    impl Budget {
        cfg_metrics! {
            fn has_remaining(self) -> bool {
                self.0.map(|budget| budget > 0).unwrap_or(true)
            }
        }
    }
}

mod split {
    cfg_io_util! {
        pub struct ReadHalf<T> { inner: Arc<Inner<T>> }
    }
}

thread_local! {
    static CURRENT: Cell<Budget> = const { Cell::new(Budget::unconstrained()) };
}

pub fn after_the_calls() {}
"""

# Not items: a call in parentheses, a call inside a function, and a macro's own definition.
NOT_ITEMS = b"""\
cfg_if!(unix, fn in_parentheses() {});

fn caller() {
    select! {
        fn not_a_definition() {}
    }
}

macro_rules! cfg_net {
    ($($item:item)*) => { $( #[cfg(feature = "net")] $item )* }
}
"""


def rows(source: bytes) -> list[tuple[int, str, str, str, str]]:
    return [(s.line, s.kind, s.qualname, s.signature, s.doc)
            for s in extract_symbols("src/lib.rs", source, language="rust")]


def test_items_inside_braced_macro_calls_are_found_with_their_scopes() -> None:
    assert rows(GATED) == [
        (5, "function", "lookup_host",
         "pub async fn lookup_host<T>(host: T) -> io::Result<SocketAddr>",
         "Performs a DNS resolution."),
        (13, "function", "poll_proceed",
         "pub(crate) fn poll_proceed(cx: &mut Context<'_>) -> Poll<RestoreOnPending>",
         "Returns `Poll::Pending` once the budget is spent."),
        (20, "method", "Budget::has_remaining", "fn has_remaining(self) -> bool", ""),
        (27, "module", "split", "mod split", ""),
        (29, "struct", "split::ReadHalf", "pub struct ReadHalf<T>", ""),
        (34, "constant", "CURRENT",
         "static CURRENT: Cell<Budget> = const { Cell::new(Budget::unconstrained()) }", ""),
        (37, "function", "after_the_calls", "pub fn after_the_calls()", ""),
    ]


def test_calls_that_hold_no_items_are_left_alone() -> None:
    assert rows(NOT_ITEMS) == [
        (3, "function", "caller", "fn caller()", ""),
        (9, "macro", "cfg_net", "macro_rules! cfg_net", ""),
    ]


def test_nesting_costs_at_most_max_depth_reparses(parse_count: ParseCount) -> None:
    # Six calls deep: the items of the first MAX_DEPTH levels are found, at one re-parse
    # a level; the deeper ones are not.
    depth = MAX_DEPTH + 2
    source = "".join(f"{'    ' * level}gate{level}! {{\n{'    ' * level}    fn at_{level}() {{}}\n"
                     for level in range(depth))
    source += "".join(f"{'    ' * level}}}\n" for level in reversed(range(depth)))
    assert [s.name for s in extract_symbols("deep.rs", source.encode(), language="rust")] == [
        f"at_{level}" for level in range(MAX_DEPTH)]
    assert parse_count.parses == 1 + MAX_DEPTH
