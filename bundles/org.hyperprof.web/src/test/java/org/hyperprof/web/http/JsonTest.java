package org.hyperprof.web.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The writer places commas itself and escapes so that no profile text can close a script or a string. */
class JsonTest {

    @Test
    void objectsAndArraysNestWithCommasInPlace() {
        String s = new Json().beginObject().member("a", 1).name("b").beginArray().value("x").value(2.5).value(true)
                .endArray().member("c", (String) null).name("d").raw("{\"e\":1}").endObject().toString();
        assertEquals("{\"a\":1,\"b\":[\"x\",2.5,true],\"c\":null,\"d\":{\"e\":1}}", s);
    }

    @Test
    void markupAndControlCharactersAreEscaped() {
        assertEquals("[\"\\u003c/script\\u003e\\u0026\\\"\\\\\\n\\u0001\"]",
                new Json().beginArray().value("</script>&\"\\\n\u0001").endArray().toString());
    }

    @Test
    void numbersThatAreNotFiniteAreNull() {
        assertEquals("[null]", new Json().beginArray().value(Double.NaN).endArray().toString());
    }
}
