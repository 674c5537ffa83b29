//! Paths in the commands the arena prints for the user to paste (`arena run --resume DIR`,
//! `arena rate DIR`): quoted for a POSIX shell, so that a folder with a space, a quote or a `$`
//! in its name pastes as one word.

use std::path::Path;

/// `path` as one word of a POSIX shell command line: as it is when it needs no quoting,
/// otherwise in single quotes (a `'` inside written `'\''`). A name that is not UTF-8 is shown
/// with replacement characters, as `Path::display` does.
pub fn shell_word(path: &Path) -> String {
    let text = path.to_string_lossy();
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c));
    if plain {
        return text.into_owned();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_that_need_it_are_quoted() {
        let cases = [
            ("results/arena-1", "results/arena-1"),
            ("/tmp/with space/run", "'/tmp/with space/run'"),
            ("it's", r"'it'\''s'"),
            ("$HOME/x", "'$HOME/x'"),
            ("", "''"),
            ("a;b", "'a;b'"),
        ];
        for (path, word) in cases {
            assert_eq!(shell_word(Path::new(path)), word, "{path}");
        }
    }
}
