"""C++/CLI and C++/CX code keeps its definitions: handles (`T^`), `gcnew`, `ref class`,
`value struct`, `abstract`/`sealed`, trivial properties, finalizers and `for each` used to
be ERROR nodes that lost the classes around them. The snippets are shaped on edge-js's
`src/dotnet` (C++/CLI) and cpprestsdk's `pplxtasks.h` (C++/CX); the whole symbol list is
compared."""

from __future__ import annotations

from symfind.extract import extract_symbols
from symfind.extract.rewrite.managed_cpp import as_standard_cpp

HEADER = b"""\
System::String^ to_managed(Utf8Text& text);

ref class InvokeContext {
private:
    Callback* callback;
    System::Object^ payload;

public:
    property System::Object^ Payload;
    property System::Threading::Tasks::Task<System::Object^>^ Task;

    InvokeContext(Local<Value> callbackOrSync) { callback = nullptr; }
    ~InvokeContext() {}
    !InvokeContext() {}
    void Complete(System::Exception^ error) {}
};

ref struct AsyncInfoImpl abstract : Windows::Foundation::IAsyncOperation<Result>
{
    virtual void Cancel() {}
};

value struct Token
{
    int id;
};

ref class Converter sealed
{
    Result^ Convert(Source^ from) { return nullptr; }
};

class Plain
{
    int size() const { return 0; }
};
"""

HEADER_SYMBOLS = [
    ("class", "InvokeContext", 3), ("method", "InvokeContext::InvokeContext", 12),
    ("method", "InvokeContext::~InvokeContext", 13),
    # A finalizer is a destructor to the grammar: it is indexed as one.
    ("method", "InvokeContext::~InvokeContext", 14),
    ("method", "InvokeContext::Complete", 15),
    ("struct", "AsyncInfoImpl", 18), ("method", "AsyncInfoImpl::Cancel", 20),
    ("struct", "Token", 23),
    ("class", "Converter", 28), ("method", "Converter::Convert", 30),
    ("class", "Plain", 33), ("method", "Plain::size", 35),
]

SOURCE = b"""\
Local<Value> ClrFunc::MarshalToV8(System::Object^ netdata)
{
    System::Type^ type = netdata->GetType();
    if (type == bool::typeid)
    {
        return Nan::New<v8::Boolean>((bool)netdata);
    }
    for each (System::Collections::Generic::KeyValuePair<System::String^, System::Object^>^ pair
        in (System::Collections::Generic::IDictionary<System::String^, System::Object^>^)netdata)
    {
        result->Set(pair->Key);
    }
    return result;
}

ClrFunc^ ClrFunc::Create()
{
    ClrFunc^ app = gcnew ClrFunc();
    app->func = gcnew System::Func<System::Object^, Task<System::Object^>^>(app, &ClrFunc::Call);
    return app;
}

InvokeContext::!InvokeContext()
{
    this->!InvokeContext();
}

Flags operator^(Flags a, Flags b) { return Flags(a.bits ^ b.bits); }

static const int after_them = 1;
"""

SOURCE_SYMBOLS = [
    ("method", "ClrFunc::MarshalToV8", 1), ("method", "ClrFunc::Create", 16),
    ("method", "InvokeContext::~InvokeContext", 23),
    ("function", "operator^", 28), ("variable", "after_them", 30),
]


def test_a_managed_header_keeps_every_class_and_member() -> None:
    """Before: `ref class` read as ERROR nodes, and with them every class of the header."""
    symbols = extract_symbols("src/dotnet/edge.h", HEADER, language="cpp")
    assert [(s.kind, s.qualname, s.line) for s in symbols] == HEADER_SYMBOLS


def test_managed_function_bodies_end_where_they_end() -> None:
    """`gcnew`, handles, `T::typeid` and `for each` in bodies no longer make the functions
    after them unparsable; `operator^` keeps its name."""
    symbols = extract_symbols("src/dotnet/clrfunc.cpp", SOURCE)
    assert [(s.kind, s.qualname, s.line) for s in symbols] == SOURCE_SYMBOLS


def test_the_rewriting_keeps_every_offset_and_leaves_standard_cpp_alone() -> None:
    for source in (HEADER, SOURCE):
        rewritten = as_standard_cpp(source)
        assert rewritten != source
        assert len(rewritten) == len(source)
        assert [len(line) for line in rewritten.split(b"\n")] == [
            len(line) for line in source.split(b"\n")]
    standard = (b"unsigned mix(unsigned a, unsigned b) { return a ^ b; }\n"
                b"unsigned flip(unsigned a) { a ^= 1; return a^mask(a); }\nclass value {};\n")
    assert as_standard_cpp(standard) is standard
