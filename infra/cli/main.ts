console.log("cli main ok", process.argv.slice(2))
