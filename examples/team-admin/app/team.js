// The team as the app's back end sends it: the page renders its members table from this list.
// Edit it (add a member, change a role) and the next run reads the table as it is then.
window.TEAM = [
  { name: "Ada Lovelace", role: "Owner", newsletter: true, badge: null },
  { name: "Alan Turing", role: "Editor", newsletter: false, badge: null },
];
