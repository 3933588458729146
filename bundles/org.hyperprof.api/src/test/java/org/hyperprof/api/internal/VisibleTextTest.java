package org.hyperprof.api.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.hyperprof.api.host.ScenarioException;
import org.hyperprof.api.symbols.SymbolFileException;
import org.junit.jupiter.api.Test;

/** Messages show what a file holds: characters that print as nothing are escaped. */
class VisibleTextTest {

    @Test
    void invisibleCharactersAreEscapedAndVisibleOnesKept() {
        assertEquals("\\uFEFFscenario", VisibleText.of("\uFEFFscenario"));
        assertEquals("a\\u200Bb\\u00A0c\\t\\r\\n\\u202E", VisibleText.of("a\u200Bb\u00A0c\t\r\n\u202E"));
        assertEquals("µs · é 漢 \uD83D\uDE00", VisibleText.of("µs · é 漢 \uD83D\uDE00"));
        assertEquals("lone \\uD800", VisibleText.of("lone \uD800"));
        String plain = "plain text";
        assertSame(plain, VisibleText.of(plain));
    }

    @Test
    void theTypedErrorsOfInputFilesEscapeTheirMessages() {
        assertEquals("x.scenario:1: found '\\uFEFFscenario'", new ScenarioException("x.scenario:1: found '\uFEFFscenario'")
                .getMessage());
        assertEquals("System.map:3: found 'c0100000\\tT\\u200B'",
                new SymbolFileException("System.map", 3, "found 'c0100000\tT\u200B'").getMessage());
    }
}
