// Report bundles implement ReportRenderer and ReportFileWriter (@ConsumerType): they import this
// package at [3.0,4).
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("3.2.0")
package org.hyperprof.api.report;
