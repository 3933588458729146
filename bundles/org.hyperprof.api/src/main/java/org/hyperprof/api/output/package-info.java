/**
 * Where every file Hyperprof writes goes, by one rule: {@link org.hyperprof.api.output.OutputFiles}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.hyperprof.api.output;
