package ugc_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// snippetImports are the packages a snippet may use without importing
// them; snippetPrelude the names a snippet may use without declaring them,
// as a reader's surrounding code would have them.
var (
	snippetImports = []string{"context", "errors", "fmt", "log", "log/slog", "math", "net/http", "os", "strconv", "testing", "time",
		"github.com/ugcposts/ugc-go", "github.com/ugcposts/ugc-go/ugctest"}
	snippetPrelude = `
var (
	ctx      context.Context
	client   *ugc.Client
	params   *ugc.PostsParams
	baseURL  string
	key      string
	reqID    string
	summerID string
	beachID  string
	summer   string
	beach    string
	featured string
	id       string
	w        http.ResponseWriter
	r        *http.Request
	err      error
	t        *testing.T
	srv      *ugctest.Server
)
`
)

// goSnippet is a Go snippet of the docs and where it is.
type goSnippet struct{ where, code string }

// readmeSnippets returns README.md's ```go blocks.
func readmeSnippets(t *testing.T) []goSnippet {
	t.Helper()
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	var out []goSnippet
	for i, m := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(b), -1) {
		out = append(out, goSnippet{fmt.Sprintf("README.md, Go block %d", i+1), m[1]})
	}
	return out
}

// docSnippets returns the code blocks of doc.go's package documentation
// that are Go: those that use the package or declare something (the others
// are log lines and error texts).
func docSnippets(t *testing.T) []goSnippet {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	var out []goSnippet
	for i, block := range new(comment.Parser).Parse(f.Doc.Text()).Content {
		code, ok := block.(*comment.Code)
		if ok && (strings.Contains(code.Text, "ugc.") || strings.Contains(code.Text, ":=")) {
			out = append(out, goSnippet{fmt.Sprintf("doc.go, block %d", i+1), code.Text})
		}
	}
	return out
}

// snippetFile wraps a snippet in a file: a function of its own is kept as
// it is, statements go in a function body; "{ ... }", the reader's code,
// becomes "{}".
func snippetFile(s goSnippet) string {
	code := strings.ReplaceAll(s.code, "{ ... }", "{}")
	var b strings.Builder
	b.WriteString("package snippet\n\nimport (\n")
	for _, p := range snippetImports {
		fmt.Fprintf(&b, "\t%q\n", p)
	}
	b.WriteString(")\n" + snippetPrelude + "\n")
	if strings.HasPrefix(strings.TrimSpace(code), "func ") {
		b.WriteString(code)
	} else {
		b.WriteString("func _() error {\n" + code + "\nreturn nil\n}\n")
	}
	return b.String()
}

// exportData returns the compiled export data of the snippets' imports and
// everything they import, by import path, from `go list -export`.
func exportData(t *testing.T) map[string]string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to compile the snippets' imports")
	}
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}, snippetImports...)
	out, err := exec.Command(goTool, args...).Output()
	require.NoError(t, err, "go list -export")
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, file, _ := strings.Cut(line, "=")
		exports[path] = file
	}
	return exports
}

// TestDocSnippetsCompile: every Go snippet of README.md and doc.go
// type-checks against the package as it is, with the imports and the few
// names (ctx, client, params, ...) a reader's code would have; only
// variables and imports left unused are forgiven.
func TestDocSnippetsCompile(t *testing.T) {
	t.Parallel()
	snippets := append(readmeSnippets(t), docSnippets(t)...)
	require.GreaterOrEqual(t, len(snippets), 8, "the docs' snippets were found")
	exports := exportData(t)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	for _, s := range snippets {
		src := snippetFile(s)
		f, err := parser.ParseFile(fset, s.where, src, 0)
		if err != nil {
			t.Errorf("%s does not parse: %v\n%s", s.where, err, s.code)
			continue
		}
		var errs bytes.Buffer
		conf := types.Config{Importer: imp, Error: func(err error) {
			if msg := err.Error(); !strings.Contains(msg, "declared and not used") && !strings.Contains(msg, "imported and not used") {
				fmt.Fprintln(&errs, msg)
			}
		}}
		_, _ = conf.Check("snippet", fset, []*ast.File{f}, nil)
		if errs.Len() > 0 {
			t.Errorf("%s does not compile:\n%s\n%s", s.where, errs.String(), s.code)
		}
	}
}
