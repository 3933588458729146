package org.hyperprof.symbols.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;

import org.hyperprof.api.symbols.ImageSource;
import org.hyperprof.api.symbols.SymbolFileException;
import org.hyperprof.api.symbols.SymbolTable;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * ELF files as anyone may hand them over, read both ways the resolver reads them: through a channel
 * (a file: only the parts the tables need) and as a stream (a resource, a procfs file). Each of the
 * resolver's questions (symbols, build-id, load base) either answers or throws its typed
 * {@link SymbolFileException}; a table's every symbol is found again at its own start. Anything
 * else is a finding. In CI the inputs under {@code ElfFuzzTestInputs/} are replayed as ordinary
 * tests; the README's development section gives the command that fuzzes.
 */
class ElfFuzzTest {

    private final ElfResolver resolver = new ElfResolver();

    @FuzzTest(maxDuration = "10m")
    void elfImage(byte[] file) {
        ask(new ImageSource("image", "elf", "fuzz/image", new Channel(file)));
        ask(new ImageSource("image", "elf", "fuzz/image", () -> new ByteArrayInputStream(file)));
    }

    private void ask(ImageSource source) {
        try {
            SymbolTable table = resolver.load(source);
            for (int i = 0; i < table.size(); i++) {
                int found = table.lookup(table.start(i));
                assertTrue(found >= 0, "a symbol's start resolves");
                assertEquals(table.start(i), table.start(found), "the symbol found starts where it was asked");
            }
        } catch (SymbolFileException e) {
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), "a refusal says why");
        }
        try {
            resolver.buildId(source);
        } catch (SymbolFileException e) {
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), "a refusal says why");
        }
        try {
            resolver.loadBase(source);
        } catch (SymbolFileException e) {
            assertTrue(e.getMessage() != null && !e.getMessage().isBlank(), "a refusal says why");
        }
    }

    /** The bytes as a file offers them: a read-only channel to read at any position, or a stream. */
    private static final class Channel implements ImageSource.Content {
        private final byte[] bytes;

        Channel(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public InputStream open() {
            return new ByteArrayInputStream(bytes);
        }

        @Override
        public SeekableByteChannel openChannel() {
            return new SeekableByteChannel() {
                private long position;
                private boolean open = true;

                @Override
                public int read(ByteBuffer dst) throws ClosedChannelException {
                    if (!open) {
                        throw new ClosedChannelException();
                    }
                    if (position >= bytes.length) {
                        return -1;
                    }
                    int n = (int) Math.min(dst.remaining(), bytes.length - position);
                    dst.put(bytes, (int) position, n);
                    position += n;
                    return n;
                }

                @Override
                public int write(ByteBuffer src) {
                    throw new NonWritableChannelException();
                }

                @Override
                public long position() {
                    return position;
                }

                @Override
                public SeekableByteChannel position(long newPosition) {
                    position = newPosition;
                    return this;
                }

                @Override
                public long size() {
                    return bytes.length;
                }

                @Override
                public SeekableByteChannel truncate(long size) {
                    throw new NonWritableChannelException();
                }

                @Override
                public boolean isOpen() {
                    return open;
                }

                @Override
                public void close() {
                    open = false;
                }
            };
        }
    }
}
