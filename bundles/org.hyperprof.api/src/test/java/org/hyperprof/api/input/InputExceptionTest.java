package org.hyperprof.api.input;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.hyperprof.api.source.SourceFormatException;
import org.junit.jupiter.api.Test;

/** The one message of bad input: the input, where in it when known, the problem; invisible characters escaped. */
class InputExceptionTest {

    @Test
    void aFormatErrorNamesTheFileThePlaceAndTheProblem() {
        SourceFormatException e = new SourceFormatException("a.folded", "line", 3, "expected 'stack count', got '\t'");
        assertEquals("a.folded line 3: expected 'stack count', got '\\t'", e.getMessage());
        assertEquals("a.folded", e.file());
        assertEquals("a.folded", e.location());
        assertEquals(3, e.position());
        assertEquals("expected 'stack count', got '\\t'", e.problem());
    }

    @Test
    void anUnknownPlaceIsLeftOut() {
        assertEquals("p.data: truncated", new SourceFormatException("p.data", "offset", -1, "truncated").getMessage());
        assertEquals("p.data offset 0: bad magic",
                new SourceFormatException("p.data", "offset", 0, "bad magic").getMessage());
    }

    @Test
    void aWholeInputErrorHasNoPlace() {
        NotAFileException e = new NotAFileException("/tmp/\u200Bx", FileKind.DIRECTORY, "is a directory; give a file");
        assertEquals("/tmp/\\u200Bx: is a directory; give a file", e.getMessage());
        assertEquals(-1, e.position());
        assertEquals("is a directory; give a file", e.problem());
    }
}
