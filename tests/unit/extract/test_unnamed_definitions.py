"""Definitions whose name is not one identifier in the source: C# operators (named
`operator ==` as C# writes them, conversions by their target type) and Kotlin's unnamed
companion object (`Companion`, as Kotlin names it, its members staying the class's).
Shaped on protobuf 3.21's C# ByteString.cs, KeePass 2's ProtectedString.cs and
react-native-screens' ScreenStackViewManager.kt; whole symbol lists."""

from __future__ import annotations

from symfind.extract import extract_symbols

CSHARP = b"""\
namespace Google.Protobuf
{
    public sealed class ByteString
    {
        public static bool operator ==(ByteString lhs, ByteString rhs)
        {
            return ReferenceEquals(lhs, rhs);
        }

        public static bool operator !=(ByteString lhs, ByteString rhs) => !(lhs == rhs);

        public static ProtectedString operator +(ProtectedString a, string b) { return a; }

        public static implicit operator ReadOnlySpan<byte>(ByteString bytes) => bytes.Span;

        public static explicit operator byte[](ByteString bytes) => bytes.ToByteArray();
    }
}
"""

KOTLIN = b"""\
class ScreenStackViewManager : ViewGroupManager<ScreenStack>() {
    override fun getName() = REACT_CLASS

    companion object {
        const val REACT_CLASS = "RNSScreenStack"
        fun create(): ScreenStackViewManager = ScreenStackViewManager()
    }
}

class Screen {
    companion object Factory {
        fun make() = Screen()
    }
}
"""


def rows(path: str, source: bytes) -> list[tuple[int, str, str]]:
    return [(s.line, s.kind, s.qualname) for s in extract_symbols(path, source)]


def test_csharp_operators_are_named_as_written() -> None:
    assert rows("ByteString.cs", CSHARP) == [
        (1, "module", "Google.Protobuf"),
        (3, "class", "Google.Protobuf.ByteString"),
        (5, "method", "Google.Protobuf.ByteString.operator =="),
        (10, "method", "Google.Protobuf.ByteString.operator !="),
        (12, "method", "Google.Protobuf.ByteString.operator +"),
        (14, "method", "Google.Protobuf.ByteString.operator ReadOnlySpan<byte>"),
        (16, "method", "Google.Protobuf.ByteString.operator byte[]"),
    ]


def test_an_unnamed_companion_is_companion_and_scopes_nothing() -> None:
    assert rows("ScreenStackViewManager.kt", KOTLIN) == [
        (1, "class", "ScreenStackViewManager"),
        (2, "method", "ScreenStackViewManager.getName"),
        (4, "class", "ScreenStackViewManager.Companion"),
        (5, "constant", "ScreenStackViewManager.REACT_CLASS"),
        (6, "method", "ScreenStackViewManager.create"),
        (10, "class", "Screen"),
        (11, "class", "Screen.Factory"),
        (12, "method", "Screen.Factory.make"),
    ]
