package org.hyperprof.command.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class TableTest {
    private static String print(Table t, Table.Format format) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        t.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), format);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void jsonEscapesQuotesBackslashesAndControlCharacters() {
        Table t = new Table("NAME", "READS").row("folded", "\"a;b 1\"\\\n\u0001");
        assertEquals("[\n  {\"name\": \"folded\", \"reads\": \"\\\"a;b 1\\\"\\\\\\n\\u0001\"}\n]\n",
                print(t, Table.Format.JSON));
    }

    @Test
    void csvQuotesCellsWithCommasQuotesOrNewlinesAndDoublesTheirQuotes() {
        Table t = new Table("NAME", "READS").row("plain", "say \"hi\", twice").row("two\nlines", "x");
        assertEquals("name,reads\nplain,\"say \"\"hi\"\", twice\"\n\"two\nlines\",x\n", print(t, Table.Format.CSV));
    }
}
