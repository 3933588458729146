/** Real ClickHouse servers started by tests, and a loopback proxy that loses replies or cuts requests. */
package org.hyperprof.testing.clickhouse;
