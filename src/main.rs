//! The `inquiry` binary: parse, dispatch, exit. All logic lives in the library.

fn main() -> std::process::ExitCode {
    inquiry::cli::main()
}
