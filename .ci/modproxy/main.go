// Command modproxy writes a module proxy directory (GOPROXY=file://DIR)
// holding one version of each module given, built from the files of the
// working tree, as the Go module proxy serves a tagged release:
//
//	DIR/<module>/@v/list
//	DIR/<module>/@v/<version>.info
//	DIR/<module>/@v/<version>.mod
//	DIR/<module>/@v/<version>.zip   (each file as <module>@<version>/<path>)
//
//	go run ./.ci/modproxy -version v0.1.0 -out DIR . otelugc
//
// A module's files are those git tracks or would track (untracked files
// that .gitignore does not exclude), read from the working tree, without
// the directories of nested modules; a nested module that has no LICENSE
// of its own gets the repository's, as the proxy's zips do. It uses the
// standard library only, so that it adds nothing to any go.mod.
package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode"
)

func main() {
	version := flag.String("version", "", "the version to write, such as v0.1.0")
	out := flag.String("out", "", "the proxy directory to write into")
	flag.Parse()
	if err := run(*version, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

// semver is the form of a release version this command writes.
var semver = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)

func run(version, out string, dirs []string) error {
	if !semver.MatchString(version) || out == "" || len(dirs) == 0 {
		return errors.New("usage: modproxy -version vX.Y.Z -out DIR MODULE_DIR [MODULE_DIR]")
	}
	files, err := repoFiles()
	if err != nil {
		return err
	}
	modDirs := map[string]bool{} // every module's directory, "." for the root
	for _, f := range files {
		if path.Base(f) == "go.mod" {
			modDirs[path.Dir(f)] = true
		}
	}
	for _, dir := range dirs {
		dir = path.Clean(filepath.ToSlash(dir))
		if !modDirs[dir] {
			return fmt.Errorf("%s: no go.mod there", dir)
		}
		if err := writeModule(out, version, dir, moduleFiles(files, modDirs, dir)); err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
	}
	return nil
}

// repoFiles lists the files of the working tree git tracks or would track,
// relative to the repository's root, which must be the current directory.
func repoFiles() ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w: %s", err, stderr.String())
	}
	var files []string
	for _, f := range strings.Split(string(b), "\x00") {
		if _, err := os.Lstat(f); f != "" && err == nil { // deleted but not yet staged: not in the tree
			files = append(files, f)
		}
	}
	return files, nil
}

// moduleFiles returns the files of the module in dir, relative to dir:
// those under it that no nested module holds, and the root's LICENSE when
// dir is nested and has none.
func moduleFiles(files []string, modDirs map[string]bool, dir string) map[string]string {
	out := map[string]string{} // path in the module -> path in the repository
	for _, f := range files {
		rel, ok := under(f, dir)
		if ok && owner(f, modDirs) == dir {
			out[rel] = f
		}
	}
	if _, has := out["LICENSE"]; dir != "." && !has {
		if _, err := os.Stat("LICENSE"); err == nil {
			out["LICENSE"] = "LICENSE"
		}
	}
	return out
}

// under returns f relative to dir, and whether f is under dir.
func under(f, dir string) (string, bool) {
	if dir == "." {
		return f, true
	}
	rel, ok := strings.CutPrefix(f, dir+"/")
	return rel, ok
}

// owner returns the directory of the module that holds file f: the
// nearest directory above it with a go.mod.
func owner(f string, modDirs map[string]bool) string {
	for d := path.Dir(f); ; d = path.Dir(d) {
		if modDirs[d] {
			return d
		}
		if d == "." || d == "/" {
			return "."
		}
	}
}

// modulePath reads the module path from a go.mod file.
func modulePath(gomod []byte) (string, error) {
	for _, line := range strings.Split(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", errors.New("go.mod names no module")
}

// writeModule writes the list, info, mod and zip files of one module.
func writeModule(out, version, dir string, files map[string]string) error {
	gomod, err := os.ReadFile(files["go.mod"])
	if err != nil {
		return err
	}
	mod, err := modulePath(gomod)
	if err != nil {
		return err
	}
	esc, err := escapePath(mod)
	if err != nil {
		return err
	}
	at := filepath.Join(out, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	zipped, err := zipModule(mod+"@"+version, files)
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{"list": []byte(version + "\n"), version + ".info": info, version + ".mod": gomod, version + ".zip": zipped} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("%s@%s: %d files\n", mod, version, len(files))
	return nil
}

// zipModule returns the module zip: each file under prefix/.
func zipModule(prefix string, files map[string]string) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for rel, src := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		w, err := zw.Create(prefix + "/" + rel)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// escapePath is a module path as the proxy protocol writes it: each
// upper-case letter as "!" and its lower case.
func escapePath(p string) (string, error) {
	var b strings.Builder
	for _, r := range p {
		switch {
		case r == '!' || r >= unicode.MaxASCII:
			return "", fmt.Errorf("module path %q: character %q", p, r)
		case unicode.IsUpper(r):
			b.WriteByte('!')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), nil
}
