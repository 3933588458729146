package org.hyperprof.api.sample;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The images and symbols of a session, by the small integer ids that {@link SampleBatch}es carry.
 * Images are per domain (each domain's daemon resolves its own, the hypervisor image included).
 * The dictionary grows while the session runs; every id in a batch a consumer has received is
 * already readable. Safe to read from any thread.
 */
@ProviderType
public interface SessionDictionary {
    /** Symbol id of a sample that no symbol covers ("(no symbols)"). */
    int NO_SYMBOL = -1;

    int imageCount();

    /** The image's name as reports print it. */
    String imageName(int image);

    ImageKind imageKind(int image);

    /** The domain whose daemon resolved the image. */
    int imageDomain(int image);

    int symbolCount();

    String symbolName(int symbol);

    /** The image a symbol belongs to. */
    int symbolImage(int symbol);

    /**
     * The name of process {@code pid} of a domain (perf's comm, as last named before the session's
     * samples of it), or null when the source did not name it ({@link SampleBatch#UNKNOWN} included).
     */
    String processName(int domain, int pid);
}
