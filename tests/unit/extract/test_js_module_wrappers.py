"""Module wrappers: what an AMD module, an IIFE or a UMD factory defines at its top is
module level, as ctags reads it. Snippets shaped on real code (jQuery 3.7.1's src/offset.js
and src/core.js, the UMD header of moment 2.30.1 and of the `returnExports` template, a
CoffeeScript-compiled file); the whole symbol list is compared."""

from __future__ import annotations

from symfind.extract import extract_symbols

AMD = b"""\
define( [
	"./core",
	"./core/access"
], function( jQuery, access ) {

"use strict";

var version = "3.7.1",
	rhtmlSuffix = /HTML$/i;

jQuery.offset = {
	setOffset: function( elem, options, i ) {
		var curPosition = {};
		function calculate() {}
		return curPosition;
	}
};

function isArrayLike( obj ) {
	var length = !!obj && obj.length;
	return length;
}

jQuery.Event.prototype = {
	preventDefault: function() {
		this.isDefaultPrevented = true;
	}
};

return jQuery;
} );
"""

UMD = b"""\
;(function (global, factory) {
    typeof exports === 'object' && typeof module !== 'undefined' ? module.exports = factory() :
    typeof define === 'function' && define.amd ? define(factory) :
    global.moment = factory()
}(this, (function () { 'use strict';

    var hookCallback;

    function hooks() {
        return hookCallback.apply(null, arguments);
    }

    const MONTHS = ['January'];

    hooks.version = '2.30.1';
    hooks.fn = { format: function (input) { return input; } };

    return hooks;

})));
"""

IIFES = b"""\
!function () {
  var cache = {};
  const LIMIT = 10;
}();

(function() {
  var Parser = (function() {
    function Parser() {}
    return Parser;
  })();
}).call(this);

(() => {
  let ready = false;
})();
"""

NOT_A_MODULE = b"""\
describe("client", () => {
  const local = 1;
  let other = 2;
});

setTimeout(function () {
  var timer = 3;
}, 10);
"""


def rows(source: bytes) -> list[tuple[int, str, str]]:
    return [(s.line, s.kind, s.qualname)
            for s in extract_symbols("wrapped.js", source, language="javascript")]


def test_an_amd_modules_factory_is_module_level() -> None:
    assert rows(AMD) == [
        (8, "variable", "version"),
        (9, "variable", "rhtmlSuffix"),
        (11, "variable", "jQuery.offset"),
        (12, "method", "jQuery.offset.setOffset"),
        (14, "function", "calculate"),
        (19, "function", "isArrayLike"),
        (25, "method", "jQuery.Event.preventDefault"),
    ]


def test_a_umd_factory_is_module_level() -> None:
    assert rows(UMD) == [
        (7, "variable", "hookCallback"),
        (9, "function", "hooks"),
        (13, "constant", "MONTHS"),
        (16, "variable", "hooks.fn"),
        (16, "method", "hooks.fn.format"),
    ]


def test_iifes_are_module_level() -> None:
    assert rows(IIFES) == [
        (2, "variable", "cache"),
        (3, "constant", "LIMIT"),
        (7, "variable", "Parser"),
        (8, "function", "Parser"),
        (14, "variable", "ready"),
    ]


def test_callbacks_are_not_modules() -> None:
    assert rows(NOT_A_MODULE) == []
