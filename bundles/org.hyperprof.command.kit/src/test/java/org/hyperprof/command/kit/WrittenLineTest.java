package org.hyperprof.command.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;

import org.hyperprof.api.output.Written;
import org.junit.jupiter.api.Test;

class WrittenLineTest {

    @Test
    void aFileSaysTheVerbTheTargetAndTheBytes() {
        Written w = new Written(Path.of("/tmp/a.zip"), Path.of("/tmp/a.zip"), Written.Placement.CREATED, 12);
        assertEquals("archived session 4 to /tmp/a.zip (12 bytes)", WrittenLine.of(w, "archived", "session 4"));
    }

    @Test
    void aLinkNamesItsFileAndAStreamIsStreamedInto() {
        Written link = new Written(Path.of("/tmp/l"), Path.of("/data/f"), Written.Placement.REPLACED, 3);
        assertEquals("wrote x to /tmp/l -> /data/f (3 bytes)", WrittenLine.of(link, "wrote", "x"));
        assertEquals("/tmp/l -> /data/f", WrittenLine.where(link));
        Written fifo = new Written(Path.of("/tmp/p"), Path.of("/tmp/p"), Written.Placement.STREAMED, 0);
        assertEquals("streamed x into /tmp/p (0 bytes)", WrittenLine.of(fifo, "wrote", "x"));
    }
}
