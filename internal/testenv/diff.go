package testenv

// SampleDiff is a diff of four files, as git writes it: a change (with a
// deleted line that starts with "--" and an added line of HTML, for the
// parsers and the pages that must escape it), a rename, a deletion and a
// new file.
const SampleDiff = `diff --git a/guide.md b/guide.md
index 1111111..2222222 100644
--- a/guide.md
+++ b/guide.md
@@ -3,4 +3,4 @@ title: Guide
 Intro.
--- a rule line, deleted
+<script>alert(1)</script>
 Outro.
\ No newline at end of file
diff --git a/old.md b/new.md
similarity index 90%
rename from old.md
rename to new.md
diff --git a/gone.md b/gone.md
deleted file mode 100644
index 3333333..0000000
--- a/gone.md
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/new.md b/new.md
new file mode 100644
index 0000000..4444444
--- /dev/null
+++ b/new.md
@@ -0,0 +1,2 @@
+hello
+world
`
