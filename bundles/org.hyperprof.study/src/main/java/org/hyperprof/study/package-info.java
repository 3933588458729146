/**
 * {@code hp:study}: one scenario under each counter-virtualization policy, side by side. Hypervisor
 * overhead, the error of every guest's profile against the ground truth under both definitions of
 * the truth, counter accesses per vCPU switch and samples lost; printed as a table, written as CSV
 * and as an SVG chart. Nothing is exported: the bundle only offers a Gogo command.
 */
package org.hyperprof.study;
