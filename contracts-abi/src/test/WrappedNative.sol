// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @notice Devnet wrapped native coin (WETH, WBNB, WPOL, WAVAX): the behaviour of the canonical WETH9 under the
///         chain's own name and symbol, so routers, pools and our contracts see what they see on the real chain.
/// @dev Kept to WETH9's observable behaviour on purpose: failed checks revert without data (callers tell a WETH
///      revert apart by that), an allowance of type(uint256).max is never spent, a transfer from oneself needs
///      no allowance, withdraw pays out with a 2300-gas stipend, any call with no matching function deposits,
///      and totalSupply is the coins held. Never deploy outside a local chain.
contract WrappedNative {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Approval(address indexed src, address indexed guy, uint256 wad);
    event Transfer(address indexed src, address indexed dst, uint256 wad);
    event Deposit(address indexed dst, uint256 wad);
    event Withdrawal(address indexed src, uint256 wad);

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
    }

    receive() external payable {
        deposit();
    }

    fallback() external payable {
        deposit();
    }

    function deposit() public payable {
        // Cannot overflow: the sum of all balances is at most the coins this contract holds.
        unchecked {
            balanceOf[msg.sender] += msg.value;
        }
        emit Deposit(msg.sender, msg.value);
    }

    function withdraw(uint256 wad) external {
        require(balanceOf[msg.sender] >= wad);
        unchecked {
            balanceOf[msg.sender] -= wad;
        }
        payable(msg.sender).transfer(wad);
        emit Withdrawal(msg.sender, wad);
    }

    function totalSupply() external view returns (uint256) {
        return address(this).balance;
    }

    function approve(address guy, uint256 wad) external returns (bool) {
        allowance[msg.sender][guy] = wad;
        emit Approval(msg.sender, guy, wad);
        return true;
    }

    function transfer(address dst, uint256 wad) external returns (bool) {
        return transferFrom(msg.sender, dst, wad);
    }

    function transferFrom(address src, address dst, uint256 wad) public returns (bool) {
        require(balanceOf[src] >= wad);
        if (src != msg.sender) {
            uint256 allowed = allowance[src][msg.sender];
            if (allowed != type(uint256).max) {
                require(allowed >= wad);
                unchecked {
                    allowance[src][msg.sender] = allowed - wad;
                }
            }
        }
        unchecked {
            balanceOf[src] -= wad;
            balanceOf[dst] += wad;
        }
        emit Transfer(src, dst, wad);
        return true;
    }
}
