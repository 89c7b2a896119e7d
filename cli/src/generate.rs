//! `keyroute completions SHELL` and `keyroute man`: the shell completion scripts and manual
//! pages, generated from the command's own definition (clap_complete, clap_mangen), so they
//! always match the binary that prints them. Packagers run them at build time (the release
//! tarball carries their output); anyone who installed with `cargo install` runs them too.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use crate::error::{CliError, Result};

/// Print a shell completion script.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  keyroute completions bash > ~/.local/share/bash-completion/completions/keyroute
  keyroute completions zsh > ~/.zfunc/_keyroute        (with fpath+=~/.zfunc before compinit)
  keyroute completions fish > ~/.config/fish/completions/keyroute.fish
  source <(keyroute completions bash)                  this shell only")]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

/// Print or write the manual pages.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  keyroute man | man -l -                  read it now
  keyroute man > keyroute.1                the main page
  keyroute man --dir ~/.local/share/man/man1
                                           keyroute.1 and one keyroute-<command>.1 per command")]
pub struct ManArgs {
    /// Write keyroute.1 and one keyroute-<command>.1 per command into this folder (created
    /// if missing) instead of printing keyroute.1.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Writes `C`'s completion script for the shell to stdout.
pub fn completions<C: CommandFactory>(args: &CompletionsArgs) -> Result<()> {
    let mut cmd = C::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "keyroute", &mut script);
    let mut out = io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(())
}

/// Prints `C`'s manual page, or writes every page into `--dir`.
pub fn man<C: CommandFactory>(args: &ManArgs) -> Result<()> {
    let cmd = C::command();
    match &args.dir {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut page).map_err(|e| CliError::io("rendering the manual", &e))?;
            let mut out = io::stdout().lock();
            out.write_all(&page)?;
            out.flush()?;
        }
        Some(dir) => write_pages(cmd, dir)?,
    }
    Ok(())
}

/// `keyroute.1` and `keyroute-<command>.1` for each command (its subcommands' too), as
/// `clap_mangen::generate_to` names them, each written whole or not at all
/// (`output::write_file`).
fn write_pages(cmd: clap::Command, dir: &Path) -> Result<()> {
    fn pages(cmd: clap::Command, dir: &Path) -> Result<()> {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
            pages(sub, dir)?;
        }
        let man = clap_mangen::Man::new(cmd);
        let mut page = Vec::new();
        man.render(&mut page).map_err(|e| CliError::io("rendering the manual", &e))?;
        crate::output::write_file(&dir.join(man.get_filename()), &page)
    }
    std::fs::create_dir_all(dir).map_err(|e| CliError::io(format_args!("cannot create {}", dir.display()), &e))?;
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    pages(cmd, dir)
}
