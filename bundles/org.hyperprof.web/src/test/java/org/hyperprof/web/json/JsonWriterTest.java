package org.hyperprof.web.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class JsonWriterTest {
    @Test
    void nestedObjectsAndArraysGetTheirCommas() {
        JsonWriter w = new JsonWriter().beginObject().member("a", 1).name("b").beginArray().value("x").value(2.5)
                .beginObject().endObject().endArray().member("c", true).name("d").nullValue().endObject();
        assertEquals("{\"a\":1,\"b\":[\"x\",2.5,{}],\"c\":true,\"d\":null}", w.toString());
    }

    @Test
    void stringsAreEscapedForJsonAndForHtmlAndNumbersJsonCannotHoldAreNull() {
        String s = new JsonWriter().beginArray().value("a\"b\\c\n</script>&\u0001").value(Double.NaN)
                .value(Double.POSITIVE_INFINITY).value(3.0).endArray().toString();
        assertEquals("[\"a\\\"b\\\\c\\n\\u003c/script\\u003e\\u0026\\u0001\",null,null,3]", s);
    }

    @Test
    void anObjectLeftOpenIsAnError() {
        assertThrows(IllegalStateException.class, () -> new JsonWriter().beginObject().toString());
    }
}
