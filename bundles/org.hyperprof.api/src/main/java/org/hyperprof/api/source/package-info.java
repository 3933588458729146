/**
 * Sample sources a third party can hot-install, as it can a consumer: a
 * {@link org.hyperprof.api.source.SampleSource} reads a file format into a
 * {@link org.hyperprof.api.source.SampleFeed}, and {@link org.hyperprof.api.source.SampleSources}
 * (the pipeline) runs it as a session every consumer receives.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package org.hyperprof.api.source;
