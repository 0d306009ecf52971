//! The fields of a line of comma-separated values, as the Windows profilers' exports write them
//! (Visual Studio's reports, xperf's tables): a field in quotes holds commas, and `""` is a quote
//! in it; a comma that ends the line starts no field.

use std::borrow::Cow;

/// The fields of a line of comma-separated values: a field in quotes holds commas, and `""` is a
/// quote in it; a comma that ends the line (as Visual Studio ends each) starts no field.
pub(crate) fn fields(line: &str) -> impl Iterator<Item = Cow<'_, str>> {
    let mut rest = Some(line).filter(|line| !line.is_empty());
    std::iter::from_fn(move || {
        let text = rest?;
        let (field, after) = match text.strip_prefix('"') {
            Some(quoted) => quoted_field(quoted),
            None => match text.split_once(',') {
                Some((field, after)) => (Cow::Borrowed(field), Some(after)),
                None => (Cow::Borrowed(text), None),
            },
        };
        rest = after.filter(|after| !after.is_empty());
        Some(field)
    })
}

/// The field of `text`, the rest of a line after a field's opening quote, and the line after the
/// comma that ends it.
fn quoted_field(text: &str) -> (Cow<'_, str>, Option<&str>) {
    let mut value = String::new();
    let mut rest = text;
    loop {
        match rest.split_once('"') {
            Some((part, after)) if after.starts_with('"') => {
                value.push_str(part);
                value.push('"');
                rest = &after[1..];
            }
            Some((part, after)) => {
                let field = if value.is_empty() { Cow::Borrowed(part) } else { Cow::Owned(value + part) };
                let after = after.split_once(',').map(|(_, after)| after);
                return (field, after);
            }
            None => return (Cow::Owned(value + rest), None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_split_at_commas_outside_quotes() {
        let split = |line| fields(line).map(Cow::into_owned).collect::<Vec<_>>();
        assert_eq!(split(r#"2,"f(a,b)","2,893,824",54.37,"","#), ["2", "f(a,b)", "2,893,824", "54.37", ""]);
        assert_eq!(split(r#"1,"say ""hi""",x"#), ["1", r#"say "hi""#, "x"]);
        assert_eq!(split("a,,b"), ["a", "", "b"]);
    }
}
