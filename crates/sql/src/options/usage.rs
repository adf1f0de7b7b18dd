/// `loadlab sysbench --help`.
pub const USAGE: &str = "\
Usage:
  loadlab sysbench [options]... TESTNAME prepare|run|cleanup
  loadlab sysbench --test=oltp [sysbench 0.4 options]... prepare|run|cleanup

Tests (sysbench 1.0's OLTP workloads, same tables and statements):
  oltp_read_only oltp_read_write oltp_write_only oltp_point_select
  oltp_update_index oltp_update_non_index oltp_insert oltp_delete
  select_random_points select_random_ranges

General options:
  --threads=N              number of threads (connections) [1]
  --time=N                 limit for total execution time in seconds, 0: none [10]
  --events=N               limit for total number of transactions, 0: none [0]
  --rate=N                 transactions per second (open model), 0: unlimited [0]
  --report-interval=N      an interval line every N seconds, 0: none [0]
  --forced-shutdown=N|off  seconds after the --time limit before threads still waiting
                           for a reply are cut off, off: wait for good [2]
  --percentile=N           percentile in latency statistics (1-100), 0: none [95]
  --histogram[=on|off]     print the latency histogram [off]
  --rand-type=STRING       uniform or special [special]
  --rand-seed=N            random seed, 0: from the current time [0]
  -o, --output=FILE        write a results file (loadlab report/plot read it)
  --client-threads=N       OS threads the connections share; >= --threads: one per connection
                           (blocking sockets), 0: 1 connection its own thread, more one per usable CPU [0]

Database options:
  --db-driver=STRING       mysql or pgsql [mysql]
  --db-ps-mode=STRING      auto (prepared statements) or disable [auto]
  --mysql-host=STRING --mysql-port=N --mysql-user=STRING --mysql-password=STRING
  --mysql-db=STRING        [localhost, 3306, sbtest, '', sbtest]
  --mysql-ignore-errors=[LIST,...]  error numbers to ignore, or all [1213,1020,1205]
  --pgsql-host --pgsql-port --pgsql-user --pgsql-password --pgsql-db
                           [localhost, 5432, sbtest, '', sbtest]
  Without a password option, the password is read from MYSQL_PWD (mysql)
  or PGPASSWORD (pgsql), which keeps it off the command line.

Workload options:
  --tables=N --table-size=N --range-size=N --skip-trx[=on|off] --auto-inc[=on|off]
  --point-selects=N --simple-ranges=N --sum-ranges=N --order-ranges=N
  --distinct-ranges=N --index-updates=N --non-index-updates=N --delete-inserts=N
  --range-selects[=on|off] --create-secondary[=on|off] --mysql-storage-engine=STRING
  --random-points=N --number-of-ranges=N --delta=N

sysbench 0.4 options (0.4 command lines run verbatim):
  --test=oltp --oltp-table-size --oltp-tables-count --oltp-read-only
  --oltp-skip-trx --oltp-test-mode=complex|simple|nontrx --oltp-nontrx-mode=select
  --oltp-range-size --oltp-dist-type --num-threads --max-time --max-requests
";
