/**
 * What the last counter-virtualization study found ({@link org.hyperprof.api.study.StudyResults}), for a reader
 * other than {@code hp:study} (the web view's study page).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package org.hyperprof.api.study;
