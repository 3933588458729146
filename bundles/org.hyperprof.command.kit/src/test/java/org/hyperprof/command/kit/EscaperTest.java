package org.hyperprof.command.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EscaperTest {

    @Test
    void replacesTheTableAndKeepsTheRest() {
        Escaper e = Escaper.of(Map.of('&', "&amp;", '\u2028', "\\u2028", '\uFFFF', "\uFFFD"));
        assertEquals("a&amp;b\\u2028c\uFFFDé", e.escape("a&b\u2028c\uFFFFé"));
        assertEquals("", e.escape(""));
        assertEquals("x[&amp;]", e.appendTo(new StringBuilder("x["), "&").append(']').toString());
    }

    @Test
    void unicodeEscapeIsLowerCaseHex() {
        assertEquals("\\u001f", Escaper.unicodeEscape('\u001f'));
        assertEquals("\\u2029", Escaper.unicodeEscape('\u2029'));
    }

    @Test
    void xmlKeepsPairsAndReplacesLoneSurrogatesWhenAsked() {
        String s = "<a\u0001\t\uD83D\uDE00\uD800\uFFFF'>";
        assertEquals("&lt;a\uFFFD\t\uD83D\uDE00\uFFFD\uFFFD&apos;&gt;", Escaper.of(Escaper.xmlTable(), "\uFFFD").escape(s));
        assertEquals("&lt;a\uFFFD\t\uD83D\uDE00\uD800\uFFFD&apos;&gt;", Escaper.of(Escaper.xmlTable()).escape(s));
    }
}
