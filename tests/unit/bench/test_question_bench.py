"""bench.question_bench: queries from docs, the hand-written format, the metrics; and the
static-model baseline's network guard."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from bench import question_baselines
from bench.question_bench import (BadQuestions, Question, doc_questions, first_sentence,
                             hand_questions, load_hand, mean_of, metrics)
from symfind.extract import Symbol, SymbolKind


@pytest.mark.parametrize(("doc", "sentence"), [
    ("Constructs and sends a :class:`Request <Request>`. :param method: the verb",
     "Constructs and sends a Request"),
    ("Legacy arg validation has the following behaviour: - root commands take any",
     "Legacy arg validation has the following behaviour"),
    ("Returns the [`Foo`](crate::Foo) for e.g. a thing. More text.",
     "Returns the Foo for e.g. a thing"),
    ("Gets the {@code String} of {@link Foo#bar}, <p>plainly</p>. Then more",
     "Gets the String of Foo#bar, plainly"),
    ("Parse the header # Examples let x = 1;", "Parse the header"),
    ("Retry a failed upload", "Retry a failed upload"),
    ("* Count keys in part of table 't': Fill 'nums' with * number of keys",
     "Count keys in part of table 't': Fill 'nums' with number of keys"),
    ("------- Gets whether the tokenizer returns empty tokens", "Gets whether the tokenizer returns empty tokens"),
    ("Convert list -------------- Given a List of class names, convert them", "Convert list"),
    ("Tests if action is a pending thunk action @public", "Tests if action is a pending thunk action"),
    ("Retrieve runtime worker metrics. **Note**: This is unstable", "Retrieve runtime worker metrics"),
    ("Retrieve runtime worker metrics **Note**: This is unstable", "Retrieve runtime worker metrics"),
    ("returns an error unless N args Deprecated: use ExactArgs", "returns an error unless N args"),
    ("ensure that stack[idx][fname] has a table. More", "ensure that stack[idx][fname] has a table"),
    ("Returns the [`Sender`] of a [channel]. More", "Returns the Sender of a [channel]"),
])
def test_first_sentence_is_the_prose_before_the_first_full_stop(doc: str, sentence: str) -> None:
    assert first_sentence(doc) == sentence


def _symbol(name: str, doc: str, path: str = "src/a.go", line: int = 1,
            kind: SymbolKind = SymbolKind.FUNCTION) -> Symbol:
    return Symbol(name=name, qualname=name, kind=kind, language="go", path=path, line=line,
                  end_line=line, doc=doc)


def test_doc_questions_keep_only_unique_prose_and_drop_the_leading_name() -> None:
    symbols = [
        _symbol("Execute", "Execute runs the root command and its children.", line=1),
        _symbol("Old", "Deprecated: use New instead of this old one.", line=2),
        _symbol("Short", "Short one.", line=3),
        _symbol("OP_GETTABLE", "A B C RA := UpValueBK[C:string]", line=3),
        _symbol("A", "Copied across many definitions here.", line=4),
        _symbol("B", "Copied across many definitions here.", line=5),
        _symbol("TestRun", "checks that the command runs twice", path="cmd_test.go", line=6),
        _symbol("pkg", "Package pkg holds the commands we run.", line=7, kind=SymbolKind.MODULE),
        _symbol("retryUpload", "Sends the file again when the network dropped it.", line=8),
    ]
    assert doc_questions("c", symbols) == [
        Question("runs the root command and its children", "c", "src/a.go", 1, "Execute",
                 False, "function", "go"),
        Question("Sends the file again when the network dropped it", "c", "src/a.go", 8,
                 "retryUpload", False, "function", "go"),
    ]


def test_doc_questions_sample_with_the_corpus_seed() -> None:
    symbols = [_symbol(f"f{i}", f"Handles case number {i} of the parser", line=i)
               for i in range(1, 301)]
    first = doc_questions("corpus", symbols, per_corpus=20)
    assert len(first) == 20
    assert doc_questions("corpus", symbols, per_corpus=20) == first
    assert doc_questions("other", symbols, per_corpus=20) != first


def _hand_row(**changes: object) -> str:
    row = {"query": "where do we retry a failed upload", "corpus": "requests",
           "path": "src/a.py", "line": 3, "name": "retry", "kind": "function",
           "shares_name_word": True}
    row.update(changes)
    return json.dumps(row)


def test_hand_questions_are_read_by_corpus(tmp_path: Path) -> None:
    (tmp_path / "requests.jsonl").write_text(_hand_row() + "\n\n", encoding="utf-8")
    assert hand_questions(tmp_path) == {"requests": [Question(
        "where do we retry a failed upload", "requests", "src/a.py", 3, "retry", True,
        "function")]}
    assert hand_questions(tmp_path / "absent") == {}


@pytest.mark.parametrize(("line", "message"), [
    ("{", "requests.jsonl:2: not JSON (Expecting property name enclosed in double quotes)"),
    ("[1]", "requests.jsonl:2: not a JSON object"),
    (_hand_row(line="3"), "requests.jsonl:2: field 'line' must be a int"),
    (_hand_row(line=True), "requests.jsonl:2: field 'line' must be a int"),
    (_hand_row(shares_name_word=1), "requests.jsonl:2: field 'shares_name_word' must be a bool"),
    (_hand_row(name=None), "requests.jsonl:2: field 'name' must be a str"),
    (_hand_row(kind=3), "requests.jsonl:2: field 'kind' must be a str"),
    (_hand_row(query=" "), "requests.jsonl:2: empty or multi-line query, or line < 1"),
    (_hand_row(line=0), "requests.jsonl:2: empty or multi-line query, or line < 1"),
])
def test_a_bad_hand_line_is_named_by_file_and_number(tmp_path: Path, line: str,
                                                     message: str) -> None:
    path = tmp_path / "requests.jsonl"
    path.write_text(_hand_row() + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(BadQuestions) as caught:
        load_hand(path)
    assert str(caught.value) == f"{tmp_path}/{message}"


def test_a_hand_question_of_another_corpus_is_refused(tmp_path: Path) -> None:
    (tmp_path / "rich.jsonl").write_text(_hand_row() + "\n", encoding="utf-8")
    with pytest.raises(BadQuestions, match="rich.jsonl: a question of corpus 'requests'"):
        hand_questions(tmp_path)


def test_metrics_count_one_relevant_answer_per_query() -> None:
    rows = [{"rank": 1}, {"rank": 3}, {"rank": 7}, {"rank": 0}]
    assert metrics(rows) == {"n": 4, "r1": 0.25, "r5": 0.5, "r10": 0.75,
                             "ndcg10": (1 + 1 / 2 + 1 / 3) / 4}
    assert metrics([]) == {"n": 0}
    assert mean_of([{"n": 2, "r1": 1.0}, {"n": 6, "r1": 0.0}, {"n": 0}]) == {
        "n": 8, "corpora": 2, "r1": 0.5}


def test_the_static_model_guard_refuses_a_connection() -> None:
    import sys

    sys.addaudithook(question_baselines._no_network)
    question_baselines._offline["on"] = True
    try:
        with socket.socket() as sock, pytest.raises(question_baselines.NetworkAttempt,
                                                     match="socket.connect"):
            sock.connect(("127.0.0.1", 9))
    finally:
        question_baselines._offline["on"] = False


def test_the_static_model_loads_and_answers_with_no_network() -> None:
    pytest.importorskip("wordllama", reason="the bench extra (pip install -e '.[bench]')")
    model = question_baselines.WordLlama()
    model.prepare(Path("."), [
        _symbol("retryUpload", "Sends the file again when the network dropped it.", line=1),
        _symbol("parseHeader", "Reads the Retry-After header of a reply.", line=2),
    ])
    answer, = model.run(["send the file again after the network dropped it"])
    assert answer.ranked == [("src/a.go", 1), ("src/a.go", 2)]
