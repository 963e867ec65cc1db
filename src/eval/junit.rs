//! The JUnit XML report (`eval --junit FILE`, `merge --junit FILE`): one
//! test case per eval case, and one per metric threshold, so a CI test view
//! shows why a build is red even when no case failed.

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
    report.add_test_suite(threshold_suite(r));
    report
}

/// One test case per bounded metric (`thresholds.json`): met is a success,
/// missed a `failure` naming the value and the bound, unmeasured an `error`
/// (nothing was learnt), not applicable a skipped case.
fn threshold_suite(r: &EvalReport) -> quick_junit::TestSuite {
    use super::metrics::GateStatus;
    use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};
    let mut suite = TestSuite::new("inquiry-thresholds");
    for g in r.metrics.iter().filter(|g| g.bounds.is_some()) {
        let bounds = g.bounds.unwrap_or_default();
        let bound_text = match (bounds.min, bounds.max) {
            (Some(lo), Some(hi)) => format!("between {lo} and {hi}"),
            (Some(lo), None) => format!("at least {lo}"),
            (None, Some(hi)) => format!("at most {hi}"),
            (None, None) => "unbounded".to_owned(),
        };
        let value = g.metric.value.map(|v| format!("{v:.4}")).unwrap_or_else(|| "unmeasured".into());
        let status = match g.status {
            GateStatus::Met | GateStatus::Ungated => TestCaseStatus::success(),
            GateStatus::Missed => {
                let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
                st.set_message(format!(
                    "{} missed: {value} ({}), must be {bound_text}",
                    g.metric.name, g.metric.detail
                ));
                st
            }
            GateStatus::Unmeasured => {
                let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
                st.set_message(format!("{} unmeasured ({}); must be {bound_text}", g.metric.name, g.metric.detail));
                st
            }
            GateStatus::NotApplicable => {
                let mut st = TestCaseStatus::skipped();
                st.set_message(format!("{}: nothing in this selection to count", g.metric.name));
                st
            }
        };
        let mut tc = TestCase::new(format!("threshold {}", g.metric.name), status);
        tc.set_classname("inquiry.thresholds");
        suite.add_test_case(tc);
    }
    suite
}
