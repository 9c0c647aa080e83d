//! A refusal's typed details, as a client reads them: the field a `BadRequest` names, the reason
//! an `ErrorInfo` gives, the resource a `ResourceInfo` names. Tests assert these values rather
//! than words of the message, which is for people and may be reworded.

use tonic::Status;
use tonic_types::StatusExt;

/// The first field violation's (field path, description); `None` without a `BadRequest`.
pub fn violation(status: &Status) -> Option<(String, String)> {
    let details = status.get_details_bad_request()?;
    let v = details.field_violations.first()?;
    Some((v.field.clone(), v.description.clone()))
}

/// The field path the refusal names (its first field violation), if it names one.
pub fn field(status: &Status) -> Option<String> {
    violation(status).map(|(field, _)| field)
}

/// The `ErrorInfo` reason (`READ_ONLY`, `KEY_CHANGED`, `VERSION_CONFLICT`, …), if the refusal
/// gives one.
pub fn reason(status: &Status) -> Option<String> {
    status.get_details_error_info().map(|info| info.reason)
}

/// The `ErrorInfo` metadata value under `key`, if any.
pub fn metadata(status: &Status, key: &str) -> Option<String> {
    status
        .get_details_error_info()
        .and_then(|info| info.metadata.get(key).cloned())
}

/// The (resource type, resource name) a `ResourceInfo` names (a `NOT_FOUND`), if any.
pub fn resource(status: &Status) -> Option<(String, String)> {
    status
        .get_details_resource_info()
        .map(|info| (info.resource_type, info.resource_name))
}

/// Every name the refusal's details give, in order: the fields of a `BadRequest`, the type and
/// subject of each `PreconditionFailure` violation, an `ErrorInfo`'s reason, a `ResourceInfo`'s
/// type. A test asserts the one it expects is among them.
pub fn names(status: &Status) -> Vec<String> {
    let details = status.get_error_details();
    let mut names = Vec::new();
    if let Some(bad) = details.bad_request() {
        names.extend(bad.field_violations.iter().map(|v| v.field.clone()));
    }
    if let Some(failure) = details.precondition_failure() {
        for v in &failure.violations {
            names.push(v.r#type.clone());
            names.push(v.subject.clone());
        }
    }
    if let Some(info) = details.error_info() {
        names.push(info.reason.clone());
    }
    if let Some(info) = details.resource_info() {
        names.push(info.resource_type.clone());
    }
    names
}
