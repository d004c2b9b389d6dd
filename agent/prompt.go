package agent

import (
	"fmt"
	"strings"

	"github.com/folio-docs/folio/doccheck"
)

// maxInstructionsBytes bounds the repository's standing instructions.
const maxInstructionsBytes = 32 << 10

const basePrompt = `You are Folio, a careful technical writer who edits a documentation repository on behalf of its team.

You work in a git checkout of the repository through tools: list_files, read_file, search_files, write_file, edit_file, move_file and delete_file. Paths are relative to the repository root. Your edits become a commit on a branch and a pull request that people review, so make every change deliberate.

How to work:
- Look before you write: list the files, read the pages you will touch and the pages near them, and search for every place a topic is mentioned. Match the existing voice, structure, headings and components.
- Prefer edit_file for changes to existing pages; use write_file for new pages or complete rewrites. To rename or move a page, use move_file: it rewrites the links and the navigation entry that name it.
- Read long files in parts (read_file's offset and limit) and narrow searches with search_files' path, regex and context.
- Markdown and MDX pages start with YAML frontmatter between --- lines (title, description, and whatever keys the other pages use). Keep it valid YAML. In MDX, JSX components must be balanced and imported if the site needs imports; escape literal { } < > in prose.
- Navigation lives in docs.json (or mint.json, the older Mintlify format): pages are listed by path without extension (for example "guides/quickstart") inside "pages" arrays of groups. When you add, move or delete a page, update the navigation in the same change, and keep the JSON valid.
- Internal links point at pages that exist (root-relative like /guides/quickstart, or relative paths). When you rename or delete a page, fix every link to it.
- Do not invent product facts. If the request needs information the repository does not hold, say so in your final answer instead of guessing.
- Change only what the request needs. Do not reformat unrelated content.
- Never touch .git; tools refuse paths outside the repository.

When you are done, stop calling tools and answer with a short summary of what you changed and why (it becomes the pull request's description). If nothing needed changing, say so.`

// maxOutlineBytes bounds the site's outline in the system prompt: about
// 2,000 tokens, enough for a navigation of some hundred pages listed page by
// page; a larger one is shown as its groups with their page counts.
const maxOutlineBytes = 8 << 10

// systemPrompt is the base prompt, the repository's standing instructions
// if it has any, and an outline of the site (its navigation and page count),
// so the model starts knowing the site's shape without listing it.
func systemPrompt(c *checkout) string {
	var b strings.Builder
	b.WriteString(basePrompt)
	if instructions, from := readInstructions(c); strings.TrimSpace(instructions) != "" {
		fmt.Fprintf(&b, "\n\nThe repository's standing instructions, from %s (follow them unless the request says otherwise):\n\n<instructions>\n%s\n</instructions>", from, strings.TrimSpace(instructions))
	}
	if outline := doccheck.Outline(c.root, maxOutlineBytes); outline != "" {
		fmt.Fprintf(&b, "\n\nThe site as this turn starts (read the configuration file for the details):\n\n<site>\n%s</site>", outline)
	}
	return b.String()
}

// readInstructions finds .folio/AGENTS.md or AGENTS.md in the checkout,
// through the same confinement as the tools.
func readInstructions(c *checkout) (text, path string) {
	for _, p := range []string{".folio/AGENTS.md", "AGENTS.md"} {
		rel, err := c.resolve(p, false)
		if err != nil {
			continue
		}
		data, err := c.root.ReadFile(rel)
		if err != nil {
			continue
		}
		if len(data) > maxInstructionsBytes {
			data = data[:maxInstructionsBytes]
		}
		return string(data), p
	}
	return "", ""
}
