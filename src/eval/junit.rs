//! The JUnit XML report (`eval --junit FILE`): one test case per eval case.

use super::report::incomplete_line;
use super::{CaseStatus, EvalReport, RunStatus};

/// JUnit XML: one test case per eval case. A failing case is a `failure` with
/// its failure lines; an unmeasured one is an `error` (the harness could not
/// run or grade it: an infrastructure problem, not a worse agent).
///
/// # Errors
/// Serialisation failure.
pub fn render_junit(r: &EvalReport) -> anyhow::Result<String> {
    Ok(junit_report(r).to_string()?)
}

/// The JUnit report of [`render_junit`] before serialisation (`eval
/// --baseline` adds the comparison's suite to it).
pub fn junit_report(r: &EvalReport) -> quick_junit::Report {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut report = Report::new(format!("inquiry eval {}", r.name));
    let mut suite = TestSuite::new("inquiry-eval");
    if let Some(line) = incomplete_line(r) {
        // Its own test case, so a CI that only counts failures still sees that the run is not whole.
        let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
        st.set_message(line);
        let mut tc = TestCase::new("eval-incomplete", st);
        tc.set_classname("inquiry.run");
        suite.add_test_case(tc);
    }
    for c in &r.cases {
        let status = match c.status {
            CaseStatus::Pass => TestCaseStatus::success(),
            CaseStatus::Unmeasured => {
                let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
                let lines: Vec<String> = c
                    .runs
                    .iter()
                    .filter_map(|x| x.unmeasured.as_ref().map(|u| format!("run {}: unmeasured: {u}", x.attempt)))
                    .collect();
                st.set_message(lines.join("\n"));
                st
            }
            CaseStatus::Fail | CaseStatus::Flaky => {
                let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
                let lines: Vec<String> = c
                    .runs
                    .iter()
                    .filter(|x| x.status == RunStatus::Fail)
                    .flat_map(|x| x.failures.iter().map(move |f| format!("run {}: {f}", x.attempt)))
                    .collect();
                st.set_message(lines.join("\n"));
                st
            }
        };
        let mut tc = TestCase::new(c.id.clone(), status);
        tc.set_classname(format!("inquiry.{}", c.lang.as_str()));
        let ms = c.runs.iter().map(|x| x.latency_ms).sum::<u64>();
        tc.set_time(std::time::Duration::from_millis(ms));
        suite.add_test_case(tc);
    }
    report.add_test_suite(suite);
    report
}
